"""Pages that refresh themselves: the discussion, the chair's queue, a problem's comparison and
the inbox each name a change-token URL here (its path and URL name still end in "stamp", as
pages already open in a browser poll it), which `static/grading/live.js` polls every few
seconds; when the token changes, the script fetches the page again and swaps in its `data-live` regions,
leaving alone any region holding focus or an input the reader has changed.

Why polling a change token, not server-sent events: the site runs under gunicorn's sync workers, where
an event stream holds a whole worker for as long as a page stays open; forty jurors and a chair
with a tab open each would need as many workers again, idle but unavailable to the autosave. A
poll is a short request like any other: it answers with the token read in one small query
(`grading.resolution.live`), or 304 Not Modified when the browser's copy (its ETag) still holds,
and only a change costs a full page. bench/load.py measures the autosave's p95 with forty
jurors polling beside it against without.

Each token is refused exactly as its page is: the same lookups, the same 404s and "submit
first" answers, so a token tells no one more than the page they may read."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from grading.resolution import live
from grading.resolution.cell_lookup import reader_cell
from grading.web.lookups import (
    SubmitFirst,
    contest_for_chair,
    problem_for_comparison,
    submit_first_page,
)

INTERVAL_SECONDS = 5


def token_answer(request, token: str) -> HttpResponse:
    """The token as a poll's answer: 304 while the browser's copy (its ETag) holds."""
    etag = f'"{token}"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(token, content_type="text/plain; charset=utf-8")
    response["ETag"] = etag
    # The browser keeps the answer but asks again every time (with If-None-Match).
    patch_cache_control(response, private=True, no_cache=True)
    return response


@login_required
@require_GET
def inbox_change_token(request):
    return token_answer(request, live.inbox_change_token(request.user))


@login_required
@require_GET
def comparison_change_token(request, contest: str, problem: int):
    try:
        problem_obj = problem_for_comparison(request, contest, problem)
    except SubmitFirst:
        return submit_first_page(request)
    return token_answer(request, live.problem_change_token(problem_obj))


@login_required
@require_GET
def discussion_change_token(request, contest: str, problem: int, label: str, code: str):
    try:
        problem_obj, paper, criterion, seed = reader_cell(request, contest, problem, label, code)
    except SubmitFirst:
        return submit_first_page(request)
    if seed is not None:
        return token_answer(
            request,
            live.seed_cell_change_token(problem=problem_obj, seed=seed, criterion=criterion),
        )
    return token_answer(
        request, live.cell_change_token(problem=problem_obj, paper=paper, criterion=criterion)
    )


@login_required
@require_GET
def queue_change_token(request, contest: str):
    return token_answer(request, live.contest_change_token(contest_for_chair(request, contest)))
