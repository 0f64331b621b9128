from django.apps import AppConfig


class BackupConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.backup"
    label = "grading_backup"
    verbose_name = "Grading: backup"

    def ready(self):
        # The jobs this part does in the background (`grading.jobs` runs them).
        from grading.backup import jobs
        from grading.jobs.running import register_work
        from grading.models import Job

        register_work(Job.Kind.BACKUP, jobs.backup_build)
