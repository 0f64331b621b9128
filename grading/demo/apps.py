from django.apps import AppConfig


class DemoConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.demo"
    label = "grading_demo"
    verbose_name = "Grading: demo"
