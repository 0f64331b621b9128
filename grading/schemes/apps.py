from django.apps import AppConfig


class SchemesConfig(AppConfig):
    # A part of the grading app (its models live in grading.models and rubrics.models).
    name = "grading.schemes"
    label = "grading_schemes"
    verbose_name = "Grading: scheme versions"
