"""Pages that refresh themselves: the discussion, the chair's queue, a problem's comparison and
the inbox each name a stamp URL here, which `static/grading/live.js` polls every few seconds;
when the stamp changes, the script fetches the page again and swaps in its `data-live` regions,
leaving alone any region holding focus or an input the reader has changed.

Why polling a stamp, not server-sent events: the site runs under gunicorn's sync workers, where
an event stream holds a whole worker for as long as a page stays open; forty jurors and a chair
with a tab open each would need as many workers again, idle but unavailable to the autosave. A
poll is a short request like any other: it answers with the stamp read in one small query
(`grading.resolution.live`), or 304 Not Modified when the browser's copy (its ETag) still holds,
and only a change costs a full page. bench/load.py measures the autosave's p95 with forty
jurors polling beside it against without.

Each stamp is refused exactly as its page is: the same lookups, the same 404s and "submit
first" answers, so a stamp tells no one more than the page they may read."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from grading.resolution import live
from grading.web.lookups import (
    SubmitFirst,
    cell_for_reader,
    contest_for_chair,
    problem_for_comparison,
    submit_first_page,
)

INTERVAL_SECONDS = 5


def _answer(request, stamp: str) -> HttpResponse:
    etag = f'"{stamp}"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(stamp, content_type="text/plain; charset=utf-8")
    response["ETag"] = etag
    # The browser keeps the answer but asks again every time (with If-None-Match).
    patch_cache_control(response, private=True, no_cache=True)
    return response


@login_required
@require_GET
def inbox_stamp(request):
    return _answer(request, live.inbox_stamp(request.user))


@login_required
@require_GET
def comparison_stamp(request, contest: str, problem: int):
    try:
        problem_obj = problem_for_comparison(request, contest, problem)
    except SubmitFirst:
        return submit_first_page(request)
    return _answer(request, live.problem_stamp(problem_obj))


@login_required
@require_GET
def discussion_stamp(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion = cell_for_reader(request, contest, problem, label, code)
    except SubmitFirst:
        return submit_first_page(request)
    return _answer(request, live.cell_stamp(problem=problem_obj, paper=paper, criterion=criterion))


@login_required
@require_GET
def queue_stamp(request, contest: str):
    return _answer(request, live.contest_stamp(contest_for_chair(request, contest)))
