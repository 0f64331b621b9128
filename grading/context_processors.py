"""Template context every page shares."""

from django.utils import timezone

from grading.models import Notification


def reader_zone(request) -> dict:
    """The zone times are shown in (the reader's, from grading.middleware), to name beside
    them."""
    return {"reader_zone": timezone.get_current_timezone_name()}


def inbox(request) -> dict:
    """The reader's unread notifications, for the count in the header: one query, run only when
    a template shows it (partials that do not extend the base page never ask)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"inbox_unread": lambda: Notification.objects.unread().filter(recipient=user).count()}
