"""The organizer's admin, under the same rules as the pages (`mixins`): contests and their
schemes (`contests`, for rubrics' models: rubrics imports nothing from grading), the jury's
data (`jury`), and delegations, provisional results and appeals (`appeals`)."""

from grading.admin import appeals, contests, jury  # noqa: F401 - importing registers each ModelAdmin
