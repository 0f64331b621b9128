"""The "Amend the scheme" page of a problem (included from grading/urls.py)."""

from django.urls import path

from grading.schemes import views

urlpatterns = [
    path("contests/<slug:contest>/p<int:problem>/scheme/", views.scheme_page, name="scheme"),
]
