"""The organizer's console, under /console/ (included from grading/urls.py)."""

from django.urls import path

from grading.views.console import contest, people, slips

app_name = "console"

urlpatterns = [
    path("", contest.console_index, name="index"),
    path("contests/<slug:contest>/", contest.contest_settings, name="contest"),
    path("contests/<slug:contest>/jurors/", people.jurors_add, name="jurors_add"),
    path("contests/<slug:contest>/jurors/confirm/", people.jurors_confirm, name="jurors_confirm"),
    path("contests/<slug:contest>/sign-in-slips.pdf", slips.contest_slips, name="contest_slips"),
    path("people/", people.people_list, name="people"),
    path("people/<str:username>/", people.person_edit, name="person"),
    path("people/<str:username>/deactivate/", people.person_deactivate, name="person_deactivate"),
    path("people/<str:username>/reactivate/", people.person_reactivate, name="person_reactivate"),
    path("people/<str:username>/unlock/", people.person_unlock, name="person_unlock"),
    path("people/<str:username>/reset/", people.person_reset, name="person_reset"),
    path("people/<str:username>/sign-in-slip.pdf", slips.person_slip, name="person_slip"),
]
