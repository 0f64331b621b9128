from django.apps import AppConfig


class ResolutionConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.resolution"
    label = "grading_resolution"
    verbose_name = "Grading: resolution"
