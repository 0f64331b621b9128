from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0014_job_kind_import_scans"),
    ]

    operations = [
        migrations.AddField(
            model_name="workerheartbeat",
            name="stopped_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
