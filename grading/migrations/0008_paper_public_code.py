import secrets

from django.db import migrations, models

import grading.models

# As grading.models.draw_public_code when this migration was written: a letter, then letters or
# digits.
ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
LENGTH = 5


def fill_public_codes(apps, schema_editor):
    """A fresh random code for every existing paper, unique within its contest."""
    Paper = apps.get_model("grading", "Paper")
    taken: dict[int, set[str]] = {}
    batch = []
    for paper in Paper.objects.only("id", "contest_id").order_by("id").iterator(chunk_size=2000):
        codes = taken.setdefault(paper.contest_id, set())
        while True:
            code = secrets.choice(ALPHABET[:20]) + "".join(
                secrets.choice(ALPHABET) for _ in range(LENGTH - 1)
            )
            if code not in codes:
                break
        codes.add(code)
        paper.public_code = code
        batch.append(paper)
        if len(batch) >= 2000:
            Paper.objects.bulk_update(batch, ["public_code"])
            batch = []
    Paper.objects.bulk_update(batch, ["public_code"])


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0007_solution_answer_counts"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="public_code",
            field=models.CharField(
                default="",
                editable=False,
                max_length=5,
                validators=[grading.models.validate_public_code],
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fill_public_codes, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="paper",
            constraint=models.UniqueConstraint(
                fields=("contest", "public_code"), name="paper_unique_public_code"
            ),
        ),
    ]
