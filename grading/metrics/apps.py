from django.apps import AppConfig


class MetricsConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.metrics"
    label = "grading_metrics"
    verbose_name = "Grading: metrics"
