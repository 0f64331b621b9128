"""Template context every page shares."""

from django.conf import settings
from django.utils import timezone

from grading.models import Notification


def reader_zone(request) -> dict:
    """The zone times are shown in (the reader's, from grading.web.middleware), to name beside
    them."""
    return {"reader_zone": timezone.get_current_timezone_name()}


def inbox(request) -> dict:
    """The reader's unread notifications, for the count in the header: one query, run only when
    a template shows it (partials that do not extend the base page never ask)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"inbox_unread": lambda: Notification.objects.unread().filter(recipient=user).count()}


def live_refresh(request) -> dict:
    """Whether this request is static/grading/live.js fetching the page again for its live
    regions. Such a fetch must leave the one-time messages alone: showing them there would use
    them up unseen, between a form's redirect and the page that was to show them. And how often
    the script asks whether the page changed (settings.LIVE_POLL_SECONDS), for its
    data-live-interval: "5", "0.2", never "5.0" nor a comma of the reader's locale."""
    return {
        "live_refresh": request.headers.get("X-Live-Refresh") == "1",
        "live_poll_seconds": f"{settings.LIVE_POLL_SECONDS:g}",
    }
