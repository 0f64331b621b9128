"""The organizer's admin, under the same rules as the pages (`mixins`): contests and their
schemes (`contests`, for rubrics' models: rubrics imports nothing from grading), and the jury's
data (`jury`)."""

from grading.admin import contests, jury  # noqa: F401 - importing registers each ModelAdmin
