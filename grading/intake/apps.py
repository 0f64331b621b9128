from django.apps import AppConfig


class IntakeConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.intake"
    label = "grading_intake"
    verbose_name = "Grading: intake"
