"""A team leader's pages, under /contests/<contest>/delegation/ (included from grading/urls.py).
The appeals' pages have their own (grading/appeals/urls.py)."""

from django.urls import path

from grading.appeals import leader_views

urlpatterns = [
    path("", leader_views.leader_delegation, name="leader_delegation"),
    path(
        "<str:public_code>/p<int:problem>/",
        leader_views.leader_contestant_problem,
        name="leader_contestant_problem",
    ),
    path(
        "<str:public_code>/p<int:problem>/pages/<int:position>.png",
        leader_views.leader_scan_page,
        name="leader_scan_page",
    ),
]
