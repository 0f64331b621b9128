"""Template context every page shares."""

from grading.models import Notification


def inbox(request) -> dict:
    """The reader's unread notifications, for the count in the header: one query, run only when
    a template shows it (partials that do not extend the base page never ask)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"inbox_unread": lambda: Notification.objects.unread().filter(recipient=user).count()}
