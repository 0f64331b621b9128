from django.apps import AppConfig


class JobsConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.jobs"
    label = "grading_jobs"
    verbose_name = "Grading: jobs"
