"""Language help's pages and the chair's marks given in conflict (included from grading/urls.py)."""

from django.urls import path

from grading.assigning import conflict_views
from grading.assigning import help_views as views

urlpatterns = [
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/help/<str:label>/",
        views.help_ask_view,
        name="help_ask",
    ),
    path("contests/<slug:contest>/help/", views.help_queue_view, name="help_queue"),
    path(
        "contests/<slug:contest>/help/<int:question>/assign/",
        views.help_assign_view,
        name="help_assign",
    ),
    path(
        "contests/<slug:contest>/conflicts/marks/",
        conflict_views.conflict_rulings_view,
        name="conflict_rulings",
    ),
    path(
        "contests/<slug:contest>/conflicts/marks/decide/",
        conflict_views.conflict_ruling_view,
        name="conflict_ruling",
    ),
    path("help/", views.help_mine_view, name="help_mine"),
    path("help/<int:question>/", views.help_request_view, name="help_request"),
    path("help/<int:question>/answer/", views.help_answer_view, name="help_answer"),
]
