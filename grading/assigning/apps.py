from django.apps import AppConfig


class AssigningConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.assigning"
    label = "grading_assigning"
    verbose_name = "Grading: assignment and language help"

    def ready(self):
        # The jobs this part does in the background (`grading.jobs` runs them).
        from grading.assigning import confirm_job, preview_job
        from grading.jobs.running import register_work
        from grading.models import Job

        register_work(Job.Kind.ASSIGNMENT, preview_job.assignment_preview_work)
        register_work(Job.Kind.ASSIGNMENT_CONFIRM, confirm_job.assignment_confirm_work)
