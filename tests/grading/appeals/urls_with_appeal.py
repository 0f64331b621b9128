"""The project's URLs with a stand-in for part B's appeal page (`appeal_file`), so that the
leaders' pages can be tested showing their link to it."""

from django.http import HttpResponse
from django.urls import path

from grading.urls import urlpatterns as project_urlpatterns


def appeal_stand_in(request, contest, code, problem):
    return HttpResponse("appeal")


urlpatterns = [
    *project_urlpatterns,
    path(
        "contests/<slug:contest>/appeals/<str:code>/p<int:problem>/new/",
        appeal_stand_in,
        name="appeal_file",
    ),
]
