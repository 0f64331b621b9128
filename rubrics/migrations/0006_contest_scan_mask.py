from decimal import Decimal

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    """The scan mask becomes a contest's setting. Contests that exist already keep the mask they
    were imported with (the top 12 % of every page): their covers told contestants to write
    the code on every answer page. New contests mask the first page of each answer only."""

    dependencies = [
        ("rubrics", "0005_scheme_versions"),
    ]

    operations = [
        migrations.AddField(
            model_name="contest",
            name="scan_mask_percent",
            field=models.DecimalField(
                db_default=Decimal("12.0"),
                decimal_places=1,
                default=Decimal("12.0"),
                help_text=(
                    "The top band of a scanned answer page painted over at import, where the "
                    "contestant writes their code: 12 % holds the code box of the answer sheet "
                    "the covers describe. Applies to scans imported from now on."
                ),
                max_digits=4,
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(Decimal("50")),
                ],
                verbose_name="scan mask (% of the page's height)",
            ),
        ),
        # Existing contests get "every" (as their pages were masked); the default then moves on.
        migrations.AddField(
            model_name="contest",
            name="scan_mask_pages",
            field=models.CharField(default="every", max_length=5),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="contest",
            name="scan_mask_pages",
            field=models.CharField(
                choices=[
                    ("first", "The first page of each answer"),
                    ("every", "Every answer page"),
                ],
                db_default="first",
                default="first",
                help_text=(
                    "The pages that carry the code box: the covers tell contestants to write "
                    "their code there. Applies to covers printed and scans imported from now on."
                ),
                max_length=5,
                verbose_name="scan mask on",
            ),
        ),
        migrations.AddConstraint(
            model_name="contest",
            constraint=models.CheckConstraint(
                condition=models.Q(("scan_mask_percent__gte", 0), ("scan_mask_percent__lte", Decimal("50"))),
                name="contest_scan_mask_percent_range",
            ),
        ),
    ]
