from django.apps import AppConfig


class CalibrationConfig(AppConfig):
    # A part of the grading app (its models live in grading.models): an app of its own so that
    # its commands and template tags sit beside its code.
    name = "grading.calibration"
    label = "grading_calibration"
    verbose_name = "Grading: calibration"
