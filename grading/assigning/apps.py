from django.apps import AppConfig


class AssigningConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.assigning"
    label = "grading_assigning"
    verbose_name = "Grading: assignment and language help"
