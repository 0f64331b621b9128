from django.apps import AppConfig


class MarkingConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.marking"
    label = "grading_marking"
    verbose_name = "Grading: marking"
