"""The calibration pages of live grading (grading/calibration/seed_views.py)."""

from django.urls import path

from grading.calibration import seed_views

urlpatterns = [
    path(
        "contests/<slug:contest>/p<int:problem>/calibration/seeds/",
        seed_views.seeds_page,
        name="calibration_seeds",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/calibration/jurors/",
        seed_views.group_calibration,
        name="calibration_jurors",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/calibration/mine/",
        seed_views.my_calibration,
        name="calibration_mine",
    ),
]
