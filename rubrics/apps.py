from django.apps import AppConfig


class RubricsConfig(AppConfig):
    name = "rubrics"
    verbose_name = "Contests and grading schemes"
    default_auto_field = "django.db.models.BigAutoField"
