from django.apps import AppConfig


class PrintingConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.printing"
    label = "grading_printing"
    verbose_name = "Grading: printing"

    def ready(self):
        # The jobs this part does in the background (`grading.jobs` runs them).
        from grading.jobs.running import register_work
        from grading.models import Job
        from grading.printing import printouts

        register_work(Job.Kind.PRINTOUTS, printouts.contest_printouts_build)
        register_work(Job.Kind.BUNDLE, printouts.bundle_build)
