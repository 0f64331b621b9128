"""A problem's discussion session in the room (included from grading/urls.py)."""

from django.urls import path

from grading.resolution import session_views as views

BASE = "contests/<slug:contest>/p<int:problem>/session/"

urlpatterns = [
    path(BASE, views.session_page, name="session"),
    path(f"{BASE}stamp/", views.session_stamp, name="session_stamp"),
    path(f"{BASE}start/", views.session_start_view, name="session_start"),
    path(f"{BASE}join/", views.session_join_view, name="session_join"),
    path(f"{BASE}leave/", views.session_leave_view, name="session_leave"),
    path(f"{BASE}move/", views.session_move_view, name="session_move"),
    path(f"{BASE}revise/", views.session_revise_view, name="session_revise"),
    path(f"{BASE}agree/", views.session_agree_view, name="session_agree"),
    path(f"{BASE}take/", views.session_take_view, name="session_take"),
    path(f"{BASE}to-chair/", views.session_to_chair_view, name="session_to_chair"),
    path(f"{BASE}end/", views.session_end_view, name="session_end"),
]
