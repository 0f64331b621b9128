"""The calibration round's pages (included from grading/urls.py)."""

from django.urls import path

from grading.calibration import views

_ROUND = "contests/<slug:contest>/p<int:problem>/calibration/"
_CELL = _ROUND + "sheet/cells/<str:label>/<str:code>/"

urlpatterns = [
    path(_ROUND, views.calibration_page, name="calibration"),
    path(_ROUND + "create/", views.calibration_create, name="calibration_create"),
    path(_ROUND + "change/", views.calibration_change, name="calibration_change"),
    path(_ROUND + "references/", views.calibration_references, name="calibration_references"),
    path(_ROUND + "open/", views.calibration_open, name="calibration_open"),
    path(_ROUND + "close/", views.calibration_close, name="calibration_close"),
    path(_ROUND + "sheet/", views.calibration_sheet_page, name="calibration_sheet"),
    path(_CELL, views.calibration_cell_save, name="calibration_cell_save"),
    path(_CELL + "note/", views.calibration_note_save, name="calibration_note_save"),
    path(_CELL + "history/", views.calibration_cell_history, name="calibration_cell_history"),
    path(
        _ROUND + "sheet/solution/<str:label>/",
        views.calibration_solution,
        name="calibration_solution",
    ),
    path(
        _ROUND + "papers/<str:label>/pages/<int:position>.png",
        views.calibration_scan_page,
        name="calibration_scan_page",
    ),
    path(_ROUND + "sheet/submit/", views.calibration_submit, name="calibration_submit"),
]
