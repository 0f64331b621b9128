from django.apps import AppConfig


class BackupConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.backup"
    label = "grading_backup"
    verbose_name = "Grading: backup"

    def ready(self):
        # The jobs this part does in the background (`grading.jobs` runs them).
        from grading.backup import jobs, restore_job
        from grading.jobs.running import register_work
        from grading.models import Job

        register_work(Job.Kind.BACKUP, jobs.backup_build)
        register_work(Job.Kind.RESTORE_PREVIEW, restore_job.restore_preview_work)
        register_work(Job.Kind.RESTORE, restore_job.restore_work)
