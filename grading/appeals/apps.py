from django.apps import AppConfig


class AppealsConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.appeals"
    label = "grading_appeals"
    verbose_name = "Grading: provisional results and appeals"
