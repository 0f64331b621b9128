"""The organizer's console, under /console/ (included from grading/urls.py)."""

from django.urls import path

from grading.console.views import (
    assignments,
    contest,
    delegations,
    evening,
    facts,
    imports,
    leaving,
    life,
    people,
    progress,
    restore,
    scans,
    slips,
    specialists,
)

app_name = "console"

urlpatterns = [
    path("", contest.console_index, name="index"),
    path("restore/", restore.restore, name="restore"),
    path("restore/confirm/", restore.restore_confirm, name="restore_confirm"),
    path("restore/jobs/<int:pk>/", restore.restore_job, name="restore_job"),
    path("restore/jobs/<int:pk>/retry/", restore.restore_retry, name="restore_retry"),
    path("contests/<slug:contest>/", contest.contest_settings, name="contest"),
    path("contests/<slug:contest>/jurors/", people.jurors_add, name="jurors_add"),
    path("contests/<slug:contest>/jurors/confirm/", people.jurors_confirm, name="jurors_confirm"),
    path(
        "contests/<slug:contest>/delegations/",
        delegations.delegations_page,
        name="delegations",
    ),
    path("contests/<slug:contest>/leaders/", delegations.leaders_add, name="leaders_add"),
    path(
        "contests/<slug:contest>/appeals-evening/",
        evening.appeals_evening,
        name="appeals_evening",
    ),
    path(
        "contests/<slug:contest>/appeals-evening/propose/",
        evening.appeals_evening_propose,
        name="appeals_evening_propose",
    ),
    path(
        "contests/<slug:contest>/appeals-evening/publish/",
        evening.appeals_evening_publish,
        name="appeals_evening_publish",
    ),
    path(
        "contests/<slug:contest>/appeals-evening/meetings/<int:pk>/move/",
        evening.appeals_meeting_move,
        name="appeals_meeting_move",
    ),
    path(
        "contests/<slug:contest>/leaders/confirm/",
        delegations.leaders_confirm,
        name="leaders_confirm",
    ),
    path(
        "contests/<slug:contest>/specialists/",
        specialists.specialists_add,
        name="specialists_add",
    ),
    path(
        "contests/<slug:contest>/specialists/confirm/",
        specialists.specialists_confirm,
        name="specialists_confirm",
    ),
    path("contests/<slug:contest>/sign-in-slips.pdf", slips.contest_slips, name="contest_slips"),
    path("contests/<slug:contest>/imports/", imports.imports_index, name="imports"),
    path(
        "contests/<slug:contest>/imports/problem-set/",
        imports.import_problemset,
        name="import_problemset",
    ),
    path("contests/<slug:contest>/imports/schemes/", imports.import_schemes, name="import_schemes"),
    path("contests/<slug:contest>/imports/outputs/", imports.import_outputs, name="import_outputs"),
    path(
        "contests/<slug:contest>/imports/human-scores/",
        imports.import_human_scores,
        name="import_human_scores",
    ),
    path(
        "contests/<slug:contest>/imports/delegations/",
        imports.import_delegations,
        name="import_delegations",
    ),
    path("contests/<slug:contest>/imports/confirm/", imports.import_confirm, name="import_confirm"),
    path("contests/<slug:contest>/imports/scans/", scans.import_scans, name="import_scans"),
    path(
        "contests/<slug:contest>/imports/scans/confirm/",
        scans.import_scans_confirm,
        name="import_scans_confirm",
    ),
    path("contests/<slug:contest>/covers/", scans.print_covers, name="print_covers"),
    path("contests/<slug:contest>/life/", life.contest_life, name="life"),
    path(
        "contests/<slug:contest>/life/deadline/",
        life.deadline_extend_view,
        name="deadline_extend",
    ),
    path("contests/<slug:contest>/life/<slug:step>/", life.contest_life_step, name="life_step"),
    path("contests/<slug:contest>/progress/", progress.contest_progress_page, name="progress"),
    path("contests/<slug:contest>/assignments/", assignments.assignments_page, name="assignments"),
    path("contests/<slug:contest>/groups/", assignments.groups_save, name="groups_save"),
    path(
        "contests/<slug:contest>/assignments/confirm/",
        assignments.assignments_confirm,
        name="assignments_confirm",
    ),
    path(
        "contests/<slug:contest>/assignments/confirmation/<int:pk>/",
        assignments.assignments_confirmation,
        name="assignments_confirmation",
    ),
    path(
        "contests/<slug:contest>/assignments/preview/<int:pk>/",
        assignments.assignments_preview,
        name="assignments_preview",
    ),
    path(
        "contests/<slug:contest>/assignments/leaving/",
        leaving.juror_leaving_page,
        name="juror_leaving",
    ),
    path(
        "contests/<slug:contest>/assignments/leaving/confirm/",
        leaving.juror_leaving_confirm,
        name="juror_leaving_confirm",
    ),
    path(
        "contests/<slug:contest>/assignments/leaving/back/",
        leaving.juror_back_confirm,
        name="juror_back",
    ),
    path(
        "contests/<slug:contest>/assignments/leaving/conflicts/",
        leaving.conflict_moves_confirm,
        name="conflict_moves",
    ),
    path(
        "contests/<slug:contest>/answer-languages/",
        facts.answer_languages,
        name="answer_languages",
    ),
    path(
        "contests/<slug:contest>/answer-languages/confirm/",
        facts.answer_languages_confirm,
        name="answer_languages_confirm",
    ),
    # Not under people/, where a username could be "facts".
    path("juror-facts/", facts.juror_facts, name="juror_facts"),
    path("juror-facts/confirm/", facts.juror_facts_confirm, name="juror_facts_confirm"),
    path("people/", people.people_list, name="people"),
    path("people/<str:username>/", people.person_edit, name="person"),
    path("people/<str:username>/deactivate/", people.person_deactivate, name="person_deactivate"),
    path("people/<str:username>/reactivate/", people.person_reactivate, name="person_reactivate"),
    path("people/<str:username>/unlock/", people.person_unlock, name="person_unlock"),
    path("people/<str:username>/reset/", people.person_reset, name="person_reset"),
    path("people/<str:username>/roles/", people.person_roles, name="person_roles"),
    path("people/<str:username>/sign-in-slip.pdf", slips.person_slip, name="person_slip"),
]
