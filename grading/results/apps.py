from django.apps import AppConfig


class ResultsConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.results"
    label = "grading_results"
    verbose_name = "Grading: results"

    def ready(self):
        # The jobs this part does in the background (`grading.jobs` runs them).
        from grading.jobs.running import register_work
        from grading.models import Job
        from grading.results import export_jobs

        register_work(Job.Kind.RESULTS, export_jobs.results_build)
        register_work(Job.Kind.JURY_EVALUATIONS, export_jobs.jury_evaluations_build)
