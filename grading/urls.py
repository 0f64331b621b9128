from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from grading import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/",
        views.paper_detail,
        name="paper_detail",
    ),
    path("admin/", admin.site.urls),
]
