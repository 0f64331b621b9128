"""The organizer's admin, under the same rules as the pages (`mixins`): contests and their
schemes (`contests`, for rubrics' models: rubrics imports nothing from grading), the jury's
data (`jury`), delegations, provisional results and appeals (`appeals`), and what the
assignment knows: jurors' facts, moves during grading and language help (`assigning`), the
criteria's comment banks (`bank`) and the groups' discussion sessions (`sessions`)."""

from grading.admin import (  # noqa: F401 - importing registers each ModelAdmin
    appeals,
    assigning,
    bank,
    calibration,
    contests,
    jury,
    sessions,
)
