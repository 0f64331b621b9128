"""The appeals' pages, under /contests/<contest>/appeals/ (included from grading/urls.py)."""

from django.urls import path

from grading.appeals import views

urlpatterns = [
    path("contests/<slug:contest>/appeals/mine/", views.appeals_mine, name="appeals_mine"),
    path(
        "contests/<slug:contest>/appeals/mine/<int:pk>/",
        views.appeal_mine_view,
        name="appeal_mine",
    ),
    path(
        "contests/<slug:contest>/appeals/mine/<int:pk>/acknowledge/",
        views.appeal_acknowledge_view,
        name="appeal_acknowledge",
    ),
    path(
        "contests/<slug:contest>/appeals/mine/<int:pk>/answer/",
        views.appeal_answer_view,
        name="appeal_answer",
    ),
    path("contests/<slug:contest>/appeals/queue/", views.appeal_queue_view, name="appeal_queue"),
    path("contests/<slug:contest>/appeals/evening/", views.evening_mine_view, name="evening_mine"),
    path(
        "contests/<slug:contest>/appeals/evening/meetings/<int:pk>/",
        views.appeal_meeting_view,
        name="appeal_meeting",
    ),
    path(
        "contests/<slug:contest>/appeals/evening/meetings/<int:pk>/stamp/",
        views.appeal_meeting_stamp,
        name="appeal_meeting_stamp",
    ),
    path(
        "contests/<slug:contest>/appeals/evening/record/<str:code>.pdf",
        views.evening_record_pdf,
        name="evening_record",
    ),
    path("contests/<slug:contest>/appeals/<int:pk>/", views.appeal_view, name="appeal"),
    path(
        "contests/<slug:contest>/appeals/<int:pk>/withdraw/",
        views.appeal_withdraw_view,
        name="appeal_withdraw",
    ),
    path(
        "contests/<slug:contest>/appeals/<int:pk>/comment/",
        views.appeal_comment_view,
        name="appeal_comment",
    ),
    path(
        "contests/<slug:contest>/appeals/<int:pk>/ask/",
        views.appeal_ask_view,
        name="appeal_ask",
    ),
    path(
        "contests/<slug:contest>/appeals/<int:pk>/decide/",
        views.appeal_decide_view,
        name="appeal_decide",
    ),
    # A leader's appeal on one contestant (by the paper's public code) and problem.
    path(
        "contests/<slug:contest>/appeals/<str:code>/p<int:problem>/",
        views.appeal_file_view,
        name="appeal_file",
    ),
]
