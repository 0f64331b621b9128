"""The one error handler (`grading.web.errors.RefusalMiddleware`): each refusal a view lets
rise becomes the answer its view declared, with the refusal's status and sentences; and the
views catch refusals only where a named reason says why."""

import ast
from pathlib import Path

import pytest
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.urls import path, reverse
from pytest_django.asserts import assertHTMLEqual, assertInHTML

import grading.urls
from grading.rules import refusals
from grading.web.errors import on_refusal

SENTENCE = "This contest is final; nothing it owns changes."
OTHER = "Reload the page before changing it."


def _raise(error_class, sentences=(SENTENCE,)):
    def view(request):
        raise error_class(list(sentences))

    return view


def _back_to_home(request):
    return reverse("home") + "?refused=1"


@on_refusal(redirect="home")
def redirect_by_name(request):
    raise refusals.WrongState([SENTENCE, OTHER])


@on_refusal(redirect=_back_to_home, one_message=True)
def redirect_by_callable(request):
    raise refusals.Stale([SENTENCE, OTHER])


def _page(request, sentences, status, number):
    return HttpResponse(f"page {number}: {' | '.join(sentences)}", status=status)


@on_refusal(page=_page)
def page_declared(request, number):
    raise refusals.SheetLocked(SENTENCE)


def not_a_refusal(request):
    raise Http404("No such page.")


STATUSES = [
    (refusals.MalformedRequest, 400),
    (refusals.NotAllowed, 403),
    (refusals.ContestFinal, 403),
    (refusals.SheetLocked, 403),
    (refusals.DecidedByChair, 403),
    (refusals.Stale, 409),
    (refusals.WrongState, 409),
    (refusals.Refusal, 422),
    (ValidationError, 422),
]

handler400 = grading.urls.handler400
urlpatterns = [
    *grading.urls.urlpatterns,
    *[path(f"refused/{cls.__name__}/", _raise(cls), name=cls.__name__) for cls, _ in STATUSES],
    path("refused-redirect/", redirect_by_name, name="redirect_by_name"),
    path("refused-callable/", redirect_by_callable, name="redirect_by_callable"),
    path("refused-page/<int:number>/", page_declared, name="page_declared"),
    path("not-a-refusal/", not_a_refusal, name="not_a_refusal"),
]

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def _sentences_on_page(response) -> list[str]:
    html = response.content.decode()
    return [part.split("</p>")[0] for part in html.split('<p class="why">')[1:]]


@pytest.mark.parametrize(("error_class", "status"), STATUSES)
def test_a_refusal_no_view_declares_is_a_page_with_its_status_and_sentence(
    client, error_class, status
):
    response = client.get(f"/refused/{error_class.__name__}/")
    assert response.status_code == status
    if status == 403:
        # The site's 403 page, as PermissionDenied with the same sentence gets it.
        assert [t.name for t in response.templates][0] == "403.html"
        assertInHTML(f'<p id="why">{SENTENCE}</p>', response.content.decode())
    else:
        assert [t.name for t in response.templates][0] == "refused.html"
        assert _sentences_on_page(response) == [SENTENCE]


@pytest.mark.parametrize(("error_class", "status"), STATUSES)
def test_a_refusal_to_htmx_is_a_partial_with_its_sentence_put_at_the_top_of_the_page(
    client, error_class, status
):
    response = client.get(f"/refused/{error_class.__name__}/", headers={"HX-Request": "true"})
    # htmx swaps only a 2xx: the partial comes as a 200, retargeted to the page's main region.
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#content"
    assert response["HX-Reswap"] == "afterbegin"
    assertHTMLEqual(
        response.content.decode(),
        f'<ul class="messages" role="alert"><li class="error">{SENTENCE}</li></ul>',
    )


def test_a_refused_post_goes_back_to_the_declared_page_with_each_sentence_as_a_message(client):
    response = client.post("/refused-redirect/")
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    shown = [(m.level_tag, m.message) for m in get_messages(response.wsgi_request)]
    assert shown == [("error", SENTENCE), ("error", OTHER)]


def test_a_refused_post_can_go_back_to_a_computed_url_with_its_sentences_as_one_message(client):
    response = client.post("/refused-callable/")
    assert response.status_code == 302
    assert response["Location"] == reverse("home") + "?refused=1"
    shown = [m.message for m in get_messages(response.wsgi_request)]
    assert shown == [f"{SENTENCE} {OTHER}"]


def test_a_refused_get_of_a_view_that_redirects_refusals_is_a_page_not_a_redirect(client):
    # Sending a GET back to a page could loop, or lose the sentence.
    response = client.get("/refused-redirect/")
    assert response.status_code == 409
    assert _sentences_on_page(response) == [SENTENCE, OTHER]


def test_a_view_that_shows_refusals_on_its_own_page_gets_sentences_status_and_its_arguments(
    client,
):
    response = client.post("/refused-page/7/")
    assert response.status_code == 403
    assert response.content.decode() == f"page 7: {SENTENCE}"


def test_what_is_not_a_validation_error_is_left_to_django(client):
    response = client.get("/not-a-refusal/")
    assert response.status_code == 404
    assert [t.name for t in response.templates][0] == "404.html"


# --- The rule stays in one place -------------------------------------------------------------

GRADING = Path(__file__).resolve().parents[3] / "grading"
CAUGHT = {"ValidationError", "ImportProblems", "ReportedFailure"} | {
    name
    for name, value in vars(refusals).items()
    if isinstance(value, type) and issubclass(value, ValidationError)
}

# The only places a view catches a refusal and answers it itself, each with why, by function
# (names that stay when modules move). Anything else lets it rise to `RefusalMiddleware`
# (declaring its page with `on_refusal`), or catches it only to clean up and re-raise it.
SHOWN_BY_THE_VIEW = {
    # appeals/views.py
    "appeal_file_view": "said on the filing form, the argument as typed",
    "appeal_decide_view": "said on the decision form, the points and reason as typed",
    # console/assignments.py
    "assignments_confirm": "said on the counts' form, as typed",
    "groups_save": "every juror's refusal gathered on the groups' form at once",
    # console/contest.py
    "console_index": "said on the new contest's form, as typed",
    "contest_settings": "said on the settings' form, as typed",
    # console/facts.py
    "answer_languages": "a final contest said on the lines' form, as typed",
    # console/imports.py
    "import_confirm": "the page of the kind that was staged, which the URL does not name",
    # console/life.py
    "contest_life_step": "said on the confirmation form, the reason as typed",
    # console/people.py
    "jurors_add": "said on the lines' form, as typed",
    "person_edit": "said on the person's form (its names, roles or facts), as typed",
    # console/delegations.py
    "leaders_add": "said on the leaders' lines' form, as typed",
    # console/evening.py
    "appeals_evening": "a final contest said on the evening's slots and tables form, as typed",
    "specialists_add": "said on the language specialists' lines' form, as typed",
    # discussion.py
    "_write_cell": "beside the comment or decision form, as typed",
    # jobs.py
    "_job": "anyone but a job's readers gets the 404 of a job that is not there",
    # sheet.py
    "_save_cell": "the autosave's JSON carries the cell as stored beside the refusal",
}


def _view_modules() -> list[Path]:
    """Every module of views: under a `views` folder, or named `views.py` / `*_views.py`."""
    return [
        module
        for module in sorted(GRADING.rglob("*.py"))
        if "views" in module.relative_to(GRADING).parts[:-1]
        or module.stem == "views"
        or module.stem.endswith("_views")
    ]


def _catches(tree: ast.AST):
    """(function, handler) for each handler of a refusal, in its innermost function."""
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        inner = {
            id(node)
            for child in ast.walk(function)
            if child is not function and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            for node in ast.walk(child)
        }
        for node in ast.walk(function):
            if id(node) in inner or not isinstance(node, ast.ExceptHandler) or node.type is None:
                continue
            names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
            names |= {n.attr for n in ast.walk(node.type) if isinstance(n, ast.Attribute)}
            if names & CAUGHT:
                yield function.name, node


def _reraises(handler: ast.ExceptHandler) -> bool:
    last = handler.body[-1]
    return isinstance(last, ast.Raise) and last.exc is None


def test_views_catch_refusals_only_where_a_named_reason_says_why():
    modules = _view_modules()
    assert len(modules) > 10  # the scan reads the views wherever they are
    found = []
    for module in modules:
        for function, handler in _catches(ast.parse(module.read_text())):
            if not _reraises(handler):
                found.append(function)
    # A view may catch in more than one place for the one reason its entry gives.
    assert sorted(set(found)) == sorted(SHOWN_BY_THE_VIEW), (
        "A view answers a refusal itself: let it rise to RefusalMiddleware (declare the page "
        "with on_refusal), or name the place and why in SHOWN_BY_THE_VIEW."
    )


def test_the_scan_sees_a_catch_of_a_refusal_and_tells_a_cleanup_from_an_answer():
    source = """
def answers(request):
    try:
        service()
    except (refusals.Stale, KeyError):
        return page()

def cleans_up(request):
    try:
        service()
    except ValidationError:
        discard()
        raise

def other(request):
    try:
        service()
    except KeyError:
        return page()
"""
    caught = [(name, _reraises(handler)) for name, handler in _catches(ast.parse(source))]
    assert caught == [("answers", False), ("cleans_up", True)]
