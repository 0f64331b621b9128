"""The one-time sign-in link's page: the juror opens the link from their slip, sets a password
and is signed in. Django's own password-reset confirmation does the work (the token is
`default_token_generator`'s, moved out of the address into the session before the form shows,
so that the page's address never carries it)."""

from axes.utils import reset as axes_reset
from django.contrib.auth import views as auth_views
from django.urls import reverse_lazy


class SignInView(auth_views.PasswordResetConfirmView):
    template_name = "console/sign_in.html"
    success_url = reverse_lazy("home")
    post_reset_login = True
    # Two backends are configured (django-axes first); the password was just set through the
    # link, so the model backend signs the person in.
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"
    reset_url_token = "set-password"

    def get_user(self, uidb64):
        user = super().get_user(uidb64)
        # A deactivated account's link is dead, whatever its token.
        return user if user is not None and user.is_active else None

    def form_valid(self, form):
        response = super().form_valid(form)
        # A new password is a fresh start: earlier failures no longer count against it.
        axes_reset(username=form.user.username)
        return response


sign_in = SignInView.as_view()
