from django.apps import AppConfig


class WebConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.web"
    label = "grading_web"
    verbose_name = "Grading: web"
