"""Times in the reader's time zone. `static/grading/timezone.js` keeps the browser's zone (an
IANA name such as "Europe/Tallinn") in a cookie; this middleware activates it for the request,
so every `|date` in the templates shows the reader's local time. A missing, unknown or
malformed value leaves the site's `TIME_ZONE` (UTC by default)."""

import re
import zoneinfo

from django.utils import timezone

COOKIE = "tz"
# IANA names: letters, digits, "_", "+", "-", in up to three "/"-separated parts. Checked
# before the name reaches zoneinfo, which would otherwise look it up on disk.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]{0,39}(/[A-Za-z0-9_+\-]{1,40}){0,2}")


def reader_zone(name: str | None) -> zoneinfo.ZoneInfo | None:
    """The zone a cookie names, or None when it names none that exists."""
    if not name or not _NAME.fullmatch(name):
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


class ReaderTimeZoneMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = reader_zone(request.COOKIES.get(COOKIE))
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
