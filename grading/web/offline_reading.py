"""Reading the grading sheet offline, and signing out so that nothing of it stays behind.

- `sheet_worker` serves the service worker (static/grading/sheet_worker.js) from the site's
  root, so that its scope covers every page: the worker keeps a copy of the sheet pages a juror
  opens and of what they fetch, and reads from it only when the network fails. Anyone may fetch
  it, signed in or not: it holds nothing of anybody, and the browser checks it for updates with
  whatever cookies it has, an ended session included; a log-in redirect there would leave an old
  worker running. The site's CSP allows it as it is: with no `worker-src`, a worker's script is
  held to `script-src 'self'`, which this same-origin script meets.
- `ReaderHeaderMiddleware` names the signed-in reader of every page (the `Jury-Reader`
  header), so that the worker keeps its copies per person and drops one person's the moment a
  page comes for someone else or for nobody.
- `sign_out` is Django's log-out with `Clear-Site-Data`: the browser drops this site's caches,
  storage (the sheets' waiting changes among them) and service workers, from whichever page
  the person signs out."""

from django.contrib.auth import views as auth_views
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

WORKER = "grading/sheet_worker.js"
READER_HEADER = "Jury-Reader"
CLEAR_SITE_DATA = '"cache", "storage"'


@never_cache  # a pinned copy would keep an old worker running after a release
@require_GET
def sheet_worker(request):
    path = finders.find(WORKER)
    if path is None:
        raise Http404("The sheet's service worker is not installed.")
    with open(path, "rb") as script:
        return HttpResponse(script.read(), content_type="text/javascript; charset=utf-8")


class ReaderHeaderMiddleware:
    """Adds `Jury-Reader: <user id>` to the pages (2xx HTML) sent to a signed-in person. A page
    shows its reader in the site's header anyway, so reading `request.user` here costs no query;
    redirects and files are left alone (and so is their user, unread)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        is_page = 200 <= response.status_code < 300 and response.get("Content-Type", "").startswith(
            "text/html"
        )
        user = getattr(request, "user", None)
        if is_page and user is not None and user.is_authenticated:
            response[READER_HEADER] = str(user.pk)
        return response


_log_out = auth_views.LogoutView.as_view()


def sign_out(request, *args, **kwargs):
    """Django's `LogoutView`, whose answer also clears what the browser keeps for this site:
    its caches (the sheets' copies), its storage (the sheets' waiting changes, asked about
    before leaving a sheet with any) and its service workers. The time-zone cookie stays."""
    response = _log_out(request, *args, **kwargs)
    if request.method == "POST":
        response["Clear-Site-Data"] = CLEAR_SITE_DATA
    return response
