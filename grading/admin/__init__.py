"""The organizer's admin, under the same rules as the pages (`mixins`): contests and their
schemes (`contests`, for rubrics' models: rubrics imports nothing from grading), the jury's
data (`jury`), delegations, provisional results and appeals (`appeals`), and what the
assignment knows: jurors' facts, moves during grading and language help (`assigning`)."""

from grading.admin import appeals, assigning, calibration, contests, jury  # noqa: F401 - importing registers each ModelAdmin
