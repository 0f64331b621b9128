from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.console"
    label = "grading_console"
    verbose_name = "Grading: console"

    def ready(self):
        # The jobs this part does in the background (`grading.jobs` runs them).
        from grading.console import imports, scans_job
        from grading.jobs.running import register_work
        from grading.models import Job

        register_work(Job.Kind.IMPORT_OUTPUTS, imports.outputs_job_work)
        register_work(Job.Kind.IMPORT_SCANS, scans_job.scans_job_work)
