from django.apps import AppConfig
from django.db.models.signals import post_migrate


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Grading"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from grading.rules.roles import ensure_role_groups

        post_migrate.connect(ensure_role_groups, sender=self)
