"""The discussion page as the chair's workbench: what is argued about (the criterion, the
paper's answers beside the official ones, the explanations, every mark with its note and
history), quick decisions through the one decision service, a refused decision that keeps
what was typed, and the walk through the queue (its filters, next and previous)."""

import re
from decimal import Decimal
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.marking.forms import DECISION_REASONS
from grading.marking.marks import mark_set
from grading.models import Comment, Mark, Resolution, Solution
from grading.resolution.decisions import discrepancy_decide, mark_revise
from tests.crawl import refetched, shared_data
from tests.grading import scenario

D = Decimal


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _build_graded():
    graded = scenario.build()
    # Orca's P1 answers: item 1 differs from the official "the dog sleeps" by one letter moved,
    # item 2 is "Water." (the competition's exact match: the same answer).
    Solution.objects.filter(
        paper=graded["papers"]["Team Orca"], task__problem=graded["problems"][1]
    ).update(answers=["the dogs sleep", "Water."])
    task = graded["problems"][1].tasks.get()
    task.reference_explanation = "Plural **-ri**, official."
    task.save()
    return graded


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_graded()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _url(name: str, graded, identity: str = "Team Orca", code: str = "T1", number: int = 1):
    return reverse(name, args=["iol", number, scenario.label(graded, identity, number), code])


def _text_of(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _text(response) -> str:
    """The page's visible text, tags dropped and whitespace collapsed."""
    html = re.sub(
        r"<script.*?</script>|<style.*?</style>", "", response.content.decode(), flags=re.S
    )
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _walk(url: str) -> str:
    """The walk token a step's or a decision's redirect carries."""
    return parse_qs(urlsplit(url).query)["walk"][0]


def _rows(response) -> list[tuple[str, ...]]:
    """The answers table as (item, paper's answer, official answer, same?) with the marked
    (differing) characters in brackets."""
    html = response.content.decode()
    table = re.search(r'<table class="answers compared">.*?</table>', html, re.S).group(0)
    rows = []
    for row in re.findall(r"<tr class=.*?</tr>", table, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows.append(
            tuple(
                unescape(re.sub(r"<[^>]+>", "", re.sub(r"</?mark>", "|", cell))).strip()
                for cell in cells
            )
        )
    return rows


def test_the_discussion_shows_the_criterion_and_the_papers_answers_beside_the_official_ones(
    graded, client
):
    client.force_login(graded["chair"])
    response = client.get(_url("discussion", graded, code="A1"))
    assert response.status_code == 200
    text = _text(response)
    assert "Criterion A1: assignment A1" in text
    assert "Maximum 12 points, step 0.5." in text
    assert _rows(response) == [
        ("1", "the dog|s| sleep", "the dog sleep|s|", "differs"),
        ("2", "Water.", "water / the water", "same"),
    ]
    html = response.content.decode()
    # Both explanations are there, folded: the paper's open, the official one closed.
    assert (
        '<details class="explanation-paper" open><summary>The paper\'s explanation</summary>'
        in html
    )
    assert "Plural in <em>-ri</em>; explanation 0." in html
    assert (
        '<details class="reference-explanation"><summary>Official explanation</summary>'
        '<div class="explanation ling"><p>Plural <strong>-ri</strong>, official.</p>'
    ) in html


def test_every_mark_shows_its_note_and_its_own_history(graded, client):
    scenario.open_resolution(graded)
    dan = graded["users"]["dan"]
    mark = Mark.objects.get(
        sheet__juror=dan, paper=graded["papers"]["Team Orca"], criterion__code="T1"
    )
    mark_set(mark=mark, points=D("7"), actor=dan, channel="browser", note="Item 3 half right.")
    client.force_login(graded["users"]["alice"])
    response = client.get(_url("discussion", graded))
    marks = re.findall(
        r'<li data-juror="(\w+)">(.*?)</li>\s*(?=<li data-juror|</ul>\s*(?:<form|</section>|<p))',
        response.content.decode(),
        re.S,
    )
    got = {}
    for juror, body in marks:
        # Times and channels aside (the page's time zone is the reader's).
        body = re.sub(r'<span class="meta">.*?</span>', "", body, flags=re.S)
        got[juror] = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", body))).strip()
    assert got == {
        "alice": "alice: 8 History – → 8",
        "bob": "bob: 8 History – → 8",
        "dan": "dan: 7 revised after submission Item 3 half right. History – → 6 6 → 7",
    }
    assert "Team " not in response.content.decode()


@pytest.mark.parametrize(
    ("take", "points"),
    [("juror:dan", D("6")), ("juror:bob", D("8")), ("lower", D("6")), ("higher", D("8"))],
)
def test_a_quick_decision_takes_a_mark_with_a_chosen_reason_and_free_text(
    graded, client, take, points
):
    client.force_login(graded["chair"])
    response = client.post(
        _url("discussion_decide", graded),
        {
            "take": take,
            "reason_choice": DECISION_REASONS[0],
            "reason_text": "Item 3.",
            "next": "stay",
        },
    )
    assert response.status_code == 302
    resolution = Resolution.objects.get(paper=graded["papers"]["Team Orca"])
    assert (resolution.kind, resolution.points, resolution.reason) == (
        "chair",
        points,
        "Agreed in discussion. Item 3.",
    )


def test_the_quick_decisions_offered_are_each_jurors_mark_and_the_lower_and_higher(graded, client):
    client.force_login(graded["chair"])
    html = client.get(_url("discussion", graded)).content.decode()
    takes = re.findall(
        r'<button type="submit" name="take" value="([^"]+)"[^>]*>(.*?)</button>', html
    )
    assert [(value, re.sub(r"<[^>]+>", "", text)) for value, text in takes] == [
        ("juror:alice=8", "1 Take alice&#x27;s mark (8)"),
        ("juror:bob=8", "2 Take bob&#x27;s mark (8)"),
        ("juror:dan=6", "3 Take dan&#x27;s mark (6)"),
        ("lower=6", "l Take the lower (6)"),
        ("higher=8", "h Take the higher (8)"),
    ]


def test_taking_a_mark_that_changed_since_the_page_showed_it_is_refused_as_stale(graded, client):
    scenario.open_resolution(graded)
    dan = graded["users"]["dan"]
    mark = Mark.objects.get(
        sheet__juror=dan, paper=graded["papers"]["Team Orca"], criterion__code="T1"
    )
    mark_revise(mark=mark, points=D("7"), actor=dan)
    client.force_login(graded["chair"])
    response = client.post(
        _url("discussion_decide", graded),
        {"take": "juror:dan=6", "reason_choice": DECISION_REASONS[0]},
    )
    assert response.status_code == 409
    assert (
        "Criterion T1: dan's mark is now 7, not 6; look at the marks again before deciding."
        in _text(response)
    )
    # The page it answers with offers dan's mark as it is now.
    assert 'value="juror:dan=7"' in response.content.decode()
    assert Resolution.objects.count() == 0
    for garbled in ("juror:dan=x", "middle=6", "juror:dan=NaN"):
        response = client.post(
            _url("discussion_decide", graded), {"take": garbled, "reason_text": "R."}
        )
        assert response.status_code == 400, garbled


def test_a_quick_decision_for_a_juror_without_a_mark_is_refused_by_the_service(graded, client):
    client.force_login(graded["chair"])
    response = client.post(
        _url("discussion_decide", graded),
        {"take": "juror:charlie", "reason_choice": DECISION_REASONS[1]},
    )
    assert response.status_code == 422
    assert "charlie has no submitted mark here" in _text(response)
    assert Resolution.objects.count() == 0


@pytest.mark.parametrize("htmx", [False, True])
def test_a_refused_decision_keeps_what_was_typed_and_says_why(graded, client, htmx):
    client.force_login(graded["chair"])
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client.post(
        _url("discussion_decide", graded),
        {
            "points": "9",
            "reason_choice": DECISION_REASONS[2],
            "reason_text": "Typed by the chair <b>with care</b>.",
            "next": "queue",
        },
        **headers,
    )
    assert response.status_code == (200 if htmx else 422)
    html = response.content.decode()
    assert 'id="decide-points" name="points" value="9"' in html
    assert 'name="reason_text" value="Typed by the chair &lt;b&gt;with care&lt;/b&gt;."' in html
    assert f'<option value="{DECISION_REASONS[2]}" selected>' in unescape(html)
    assertInHTML('<input type="radio" name="next" value="queue" checked>', html)
    error = re.search(r'<div class="error" id="decide-error"[^>]*>(.*?)</div>', html, re.S)
    assert unescape(re.sub(r"<[^>]+>", "", error.group(1))) == (
        "Criterion T1: 9 is more than the 8 points this criterion allows."
    )
    assert html.lstrip().startswith('<div id="discussion"') == htmx
    assert Resolution.objects.count() == 0


def test_after_deciding_the_chair_lands_on_the_next_cell_of_the_queue_as_filtered(graded, client):
    client.force_login(graded["chair"])
    queue = client.get(reverse("chair_queue", args=["iol"]), {"problem": "1"})
    items = [(item.label, item.cell.criterion.code) for item in queue.context["items"]]
    orca, heron = (scenario.label(graded, name, 1) for name in ("Team Orca", "Team Heron"))
    # Heron's total is the nearer a cut-off: its cell comes first.
    assert items == [(heron, "A1"), (orca, "T1")]
    # The queue's links carry its filters to the discussion, and the discussion on.
    assert 'criteria/A1/?problem=1"' in queue.content.decode()
    page = client.get(_url("discussion", graded, "Team Heron", "A1") + "?problem=1")
    assert 'name="queue" value="problem=1"' in page.content.decode()
    response = client.post(
        _url("discussion_decide", graded, "Team Heron", "A1"),
        {"points": "8", "reason_choice": DECISION_REASONS[3], "next": "cell", "queue": "problem=1"},
    )
    assert response.status_code == 302
    # The walk started here goes on under its token (grading.resolution.queue_walk).
    walk = _walk(response["Location"])
    assert response["Location"] == _url("discussion", graded) + f"?problem=1&walk={walk}"
    # The last one: back to the queue, which says so.
    response = client.post(
        _url("discussion_decide", graded),
        {
            "points": "7",
            "reason_text": "Rule 2.",
            "next": "cell",
            "queue": f"problem=1&walk={walk}",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response["HX-Redirect"] == reverse("chair_queue", args=["iol"]) + "?problem=1"
    assert "That was the last cell of the queue." in _text(client.get(response["HX-Redirect"]))
    assert list(Resolution.objects.order_by("points").values_list("points", "reason")) == [
        (D("7"), "Rule 2."),
        (D("8"), DECISION_REASONS[3]),
    ]


def test_next_and_previous_walk_the_queue_and_stop_at_its_ends(graded, client):
    client.force_login(graded["chair"])
    orca, heron = (scenario.label(graded, name, 1) for name in ("Team Orca", "Team Heron"))
    step = reverse("chair_queue_step", args=["iol"])

    def go(at: str, direction: str) -> str:
        """Where the step leads, without the token of the walk it starts."""
        response = client.get(step, {"at": at, "dir": direction})
        assert response.status_code == 302
        location = response["Location"]
        return location.replace(f"?walk={_walk(location)}", "") if "walk=" in location else location

    assert go(f"1:{heron}:A1", "next") == _url("discussion", graded)
    assert go(f"1:{orca}:T1", "previous") == _url("discussion", graded, "Team Heron", "A1")
    assert go(f"1:{orca}:T1", "next") == reverse("chair_queue", args=["iol"])
    assert go(f"1:{heron}:A1", "previous") == reverse("chair_queue", args=["iol"])
    # A cell no longer in the queue (decided meanwhile): next is the queue's first.
    assert go("1:NOPE:T1", "next") == _url("discussion", graded, "Team Heron", "A1")
    # The discussion's links are these steps, and a juror has none.
    html = client.get(_url("discussion", graded)).content.decode()
    assert f'href="{step}?at=1%3A{orca}%3AT1&amp;dir=next" id="queue-next"' in html
    client.force_login(graded["users"]["alice"])
    assert 'id="queue-next"' not in client.get(_url("discussion", graded)).content.decode()
    assert client.get(step, {"at": f"1:{orca}:T1"}).status_code == 404


def test_the_queue_filters_by_problem_status_straddle_and_label(db, client):
    marks = {
        # Close: within tolerance everywhere but straddling gold/silver; its P2 T1 is open.
        "Team Close": {
            1: {"alice": ("8", "6"), "bob": ("7.5", "5.5"), "dan": ("8", "6")},
            2: {"charlie": ("10", "4"), "erin": ("10", "1")},
        },
        "Team Clear": {
            1: {"alice": ("12", "8"), "bob": ("9", "8"), "dan": ("12", "8")},
            2: {"charlie": ("10", "4"), "erin": ("10", "4")},
        },
    }
    # Beside the module's scenario, under names of its own.
    graded = scenario.build(
        marks=marks, tolerances={(1, "A1"): "0.5", (1, "T1"): "0.5"}, suffix="2"
    )
    discrepancy_decide(
        paper=graded["papers"]["Team Clear"],
        criterion=graded["problems"][1].criteria.get(code="A1"),
        points=D("12"),
        reason="Bob misread.",
        actor=graded["chair"],
    )
    client.force_login(graded["chair"])
    close2, clear1 = (
        scenario.label(graded, "Team Close", 2),
        scenario.label(graded, "Team Clear", 1),
    )

    def shown(**filters) -> list[tuple[str, str, str]]:
        response = client.get(reverse("chair_queue", args=["iol2"]), filters)
        assert response.status_code == 200
        return [
            (item.problem.code, item.label, item.cell.criterion.code)
            for item in response.context["items"]
        ]

    assert shown() == [("P2", close2, "T1")]
    assert shown(problem="1") == []
    assert shown(status="chair") == [("P1", clear1, "A1")]
    assert shown(status="any", straddle="1") == [("P2", close2, "T1")]
    assert shown(status="any", label=clear1[:2].lower()) == [("P1", clear1, "A1")]
    # What cannot apply is ignored, not refused.
    assert shown(problem="x", status="nonsense") == [("P2", close2, "T1")]
    page = _text(client.get(reverse("chair_queue", args=["iol2"]), {"status": "chair"}))
    assert "1 cell (decided by the chair)" in page


def test_breadcrumbs_go_home_the_contest_the_comparison_then_the_cell(graded, client):
    home, comparison = reverse("home"), reverse("comparison", args=["iol", 1])
    orca = scenario.label(graded, "Team Orca", 1)

    def crumbs(user, url):
        client.force_login(user)
        nav = re.search(r'<nav class="crumbs".*?</nav>', client.get(url).content.decode(), re.S)
        return _text_of(nav.group(0)), re.findall(r'href="([^"]+)"', nav.group(0))

    assert crumbs(graded["chair"], _url("discussion", graded)) == (
        f"Home › Contest iol › P1 comparison › Paper {orca} · T1",
        [home, f"{home}#contest-iol", comparison],
    )
    assert crumbs(graded["users"]["alice"], _url("discussion", graded)) == (
        f"Home › Contest iol › P1 comparison › Paper {orca} · T1",
        [home, f"{home}#problem-iol-1", comparison],
    )
    assert crumbs(graded["chair"], reverse("chair_queue", args=["iol"])) == (
        "Home › Contest iol › Queue",
        [home, f"{home}#contest-iol"],
    )


@pytest.mark.parametrize("htmx", [False, True])
def test_a_refused_comment_keeps_what_was_typed_and_says_why(graded, client, htmx):
    client.force_login(graded["users"]["alice"])
    text = "x" * 4001
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client.post(_url("discussion_comment", graded), {"text": text}, **headers)
    assert response.status_code == (200 if htmx else 422)
    html = response.content.decode()
    assert f'aria-describedby="comment-error">{text}</textarea>' in html
    error = re.search(r'<div class="error" id="comment-error"[^>]*>(.*?)</div>', html, re.S)
    assert _text_of(error.group(1)) == (
        "A comment holds at most 4000 characters; this one has 4001."
    )
    assert Comment.objects.count() == 0
