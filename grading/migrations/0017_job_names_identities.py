from django.db import migrations, models


def _results_made_before(apps, schema_editor):
    # A results export made before this field existed may name the systems: treated as if it
    # did, so that it is downloaded only by those who may see identities (the organizer, the
    # chair of a final contest); a new export is made in a moment otherwise.
    Job = apps.get_model("grading", "Job")
    Job.objects.filter(kind="results").update(names_identities=True)


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0016_paperlabel_blank"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="names_identities",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(_results_made_before, migrations.RunPython.noop),
    ]
