"""Log-in throttling: two limits on wrong passwords within the cool-off (django-axes).

- One username from one address: `AXES_FAILURE_LIMIT` (LOGIN_FAILURE_LIMIT, 5) failures pause
  that username from that address. Per pair, not per address, so that jurors behind one venue
  network do not lock each other out with a typo.
- One address across usernames: `LOGIN_ADDRESS_FAILURE_LIMIT` (30) failures pause every log-in
  from that address, so that trying one password on many usernames is limited too. Higher than
  the first, so that a venue's shared address is not paused by a few jurors' typos.

django-axes compares one failure count with one limit, so an address over its limit reports
its pairs as having reached theirs; the rest (counting, cool-off, reset on success, the 429
page) is django-axes' own."""

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum


def address_failures(request) -> int:
    """Wrong passwords from the request's address within the cool-off, whatever the username."""
    address = getattr(request, "axes_ip_address", None)
    if not address:
        return 0
    total = AccessAttempt.objects.filter(
        ip_address=address, attempt_time__gte=get_cool_off_threshold(request)
    ).aggregate(total=Sum("failures_since_start"))["total"]
    return total or 0


class JuryAxesHandler(AxesDatabaseHandler):
    """django-axes' database handler with the per-address limit added (see the module)."""

    def get_failures(self, request, credentials=None) -> int:
        failures = super().get_failures(request, credentials)
        if address_failures(request) >= settings.LOGIN_ADDRESS_FAILURE_LIMIT:
            # Read by the lock-out page, which then names the address rather than the user.
            request.axes_address_paused = True
            return max(failures, settings.AXES_FAILURE_LIMIT)
        return failures
