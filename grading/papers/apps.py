from django.apps import AppConfig


class PapersConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.papers"
    label = "grading_papers"
    verbose_name = "Grading: papers"
