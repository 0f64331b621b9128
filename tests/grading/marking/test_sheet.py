"""The juror's grading sheet without a browser: access, saving cells and notes, refusals,
stale versions, history, submitting, the resolution phase, the query-count guard and the
independence crawl."""

import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent, PaperLabel, Sheet
from rubrics.models import Contest
from tests import factories
from tests.crawl import crawl, response_text


def _labels(contest, number: int = 1) -> list[str]:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=number).values_list(
            "label", flat=True
        )
    )


def _mark(juror, label: str, code: str, number: int = 1) -> Mark:
    return Mark.objects.select_related("criterion").get(
        sheet__juror=juror,
        sheet__problem__number=number,
        criterion__code=code,
        paper__labels__label=label,
        paper__labels__problem__number=number,
    )


def _cell_url(contest, label: str, code: str, name: str = "sheet_cell_save", number: int = 1):
    return reverse(name, args=[contest.slug, number, label, code])


def _save(client, contest, label, code, points, version, number=1):
    return client.post(
        _cell_url(contest, label, code, number=number),
        {"points": points, "version": version},
    )


def _fill(juror, contest, value: str, note: str = "") -> None:
    for mark in Mark.objects.filter(sheet__juror=juror).select_related("criterion"):
        mark_set(mark=mark, points=Decimal(value), note=note, actor=juror, channel="browser")


def _snapshot():
    return (
        sorted(Mark.objects.values_list("pk", "points", "note", "version")),
        MarkEvent.objects.count(),
    )


# ---- the page and who reaches it -----------------------------------------------------------


def test_sheet_shows_one_row_per_assigned_paper_by_label_with_criteria_headers(
    client, contest, juror
):
    client.force_login(juror)
    response = client.get(reverse("sheet", args=[contest.slug, 1]))
    assert response.status_code == 200
    grid = response.context["grid"]
    assert [row.label for row in grid.rows] == _labels(contest)
    assert [criterion.code for criterion in grid.criteria] == ["A1", "T1"]
    assert [column["points"] for column in response.context["columns"]] == ["12", "8"]
    assert (grid.graded, grid.cells) == (0, 6)


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        (None, 302),
        ("juror", 200),
        ("outside_juror", 404),
        ("chair", 404),
        ("organizer", 404),
    ],
)
def test_only_an_assigned_juror_reaches_a_sheet_of_the_problem(
    request, client, contest, who, expected
):
    if who:
        client.force_login(request.getfixturevalue(who))
    label = _labels(contest)[0]
    urls = [
        reverse("sheet", args=[contest.slug, 1]),
        reverse("sheet_xlsx", args=[contest.slug, 1]),
        reverse("sheet_solution", args=[contest.slug, 1, label]),
        _cell_url(contest, label, "A1", "sheet_cell_history"),
    ]
    assert [client.get(url).status_code for url in urls] == [expected] * 4


def test_anonymous_visitor_is_sent_to_log_in_from_the_sheet(client, contest):
    url = reverse("sheet", args=[contest.slug, 1])
    assert client.get(url)["Location"] == f"{reverse('login')}?next={url}"


@pytest.mark.parametrize("who", ["outside_juror", "chair", "organizer"])
def test_outsiders_cannot_save_submit_or_upload_and_nothing_changes(request, client, contest, who):
    client.force_login(request.getfixturevalue(who))
    label = _labels(contest)[0]
    before = _snapshot()
    statuses = [
        _save(client, contest, label, "A1", "2", 0).status_code,
        client.post(
            _cell_url(contest, label, "A1", "sheet_note_save"), {"note": "x", "version": 0}
        ).status_code,
        client.post(reverse("sheet_submit", args=[contest.slug, 1])).status_code,
        client.post(reverse("sheet_xlsx_upload", args=[contest.slug, 1])).status_code,
    ]
    assert statuses == [404, 404, 404, 404]
    assert _snapshot() == before


def test_home_card_links_to_the_jurors_sheet(client, contest, juror):
    client.force_login(juror)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    sheet_url = reverse("sheet", args=[contest.slug, 1])
    assert response.content.decode().count(f'href="{sheet_url}"') == 1


def test_filter_shows_only_papers_with_ungraded_cells(client, contest, juror):
    first, *rest = _labels(contest)
    for code in ("A1", "T1"):
        mark_set(
            mark=_mark(juror, first, code), points=Decimal("1"), actor=juror, channel="browser"
        )
    client.force_login(juror)
    response = client.get(reverse("sheet", args=[contest.slug, 1]), {"ungraded": "1"})
    assert [row.label for row in response.context["rows"]] == rest
    assert (response.context["grid"].graded, response.context["grid"].cells) == (2, 6)


def test_solution_beside_the_grid_shows_answers_references_and_sanitized_explanation(
    client, contest, juror
):
    label = _labels(contest)[0]
    solution = _mark(juror, label, "A1").paper.solutions.get(task__problem__number=1)
    solution.explanation = "| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script>"
    solution.parse_notes = ["2 answers for 3 items: padded with 1 empty answer."]
    solution.save()
    client.force_login(juror)
    html = client.get(reverse("sheet_solution", args=[contest.slug, 1, label])).content.decode()
    assert html.count("<table>") == 1
    assert "<script>" not in html
    assert html.count("padded with 1 empty answer") == 1
    assert html.count("water / the water") == 1
    page = client.get(reverse("sheet", args=[contest.slug, 1]), {"row": label})
    assert page.context["solution_label"] == label


def test_solution_of_a_label_not_on_the_sheet_is_not_found(client, contest, juror):
    client.force_login(juror)
    other_problem_label = _labels(contest, 2)[0]
    statuses = [
        client.get(reverse("sheet_solution", args=[contest.slug, 1, "ZZZZ"])).status_code,
        client.get(reverse("sheet", args=[contest.slug, 1]), {"row": "ZZZZ"}).status_code,
    ]
    if other_problem_label not in _labels(contest, 1):
        statuses.append(
            client.get(
                reverse("sheet_solution", args=[contest.slug, 1, other_problem_label])
            ).status_code
        )
    assert set(statuses) == {404}


# ---- saving ----------------------------------------------------------------------------------


def test_saving_a_cell_records_a_browser_event_and_returns_the_new_version(client, contest, juror):
    label = _labels(contest)[0]
    client.force_login(juror)
    response = _save(client, contest, label, "A1", "2,5", 0)
    assert response.status_code == 200
    assert response.json() == {"points": "2.5", "note": "", "version": 1, "saved": True}
    mark = _mark(juror, label, "A1")
    assert (mark.points, mark.version) == (Decimal("2.5"), 1)
    assert list(mark.events.values_list("old_points", "new_points", "channel", "actor")) == [
        (None, Decimal("2.5"), "browser", juror.pk)
    ]


def test_clearing_a_cell_makes_it_blank_not_zero(client, contest, juror):
    label = _labels(contest)[0]
    mark_set(mark=_mark(juror, label, "T1"), points=Decimal("3"), actor=juror, channel="browser")
    client.force_login(juror)
    response = _save(client, contest, label, "T1", "", 1)
    assert response.json() == {"points": "", "note": "", "version": 2, "saved": True}
    assert _mark(juror, label, "T1").points is None


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("13", "Criterion A1: 13 is more than the 12 points this criterion allows."),
        ("-1", "Criterion A1: -1 is negative; points go from 0 to 12."),
        ("1.25", "Criterion A1: 1.25 is not a multiple of the step 0.5."),
        ("two", "Criterion A1: “two” is not a number of points."),
    ],
)
def test_an_invalid_entry_is_refused_with_its_reason_and_nothing_is_saved(
    client, contest, juror, typed, message
):
    label = _labels(contest)[0]
    client.force_login(juror)
    before = _snapshot()
    response = _save(client, contest, label, "A1", typed, 0)
    assert response.status_code == 422
    assert response.json() == {
        "points": "",
        "note": "",
        "version": 0,
        "saved": False,
        "error": message,
    }
    assert _snapshot() == before


def test_a_save_from_a_stale_page_is_refused_saying_what_changed_and_when(client, contest, juror):
    label = _labels(contest)[0]
    client.force_login(juror)
    assert _save(client, contest, label, "A1", "4", 0).status_code == 200
    before = _snapshot()
    response = _save(client, contest, label, "A1", "6", 0)
    assert response.status_code == 409
    body = response.json()
    assert (body["points"], body["version"], body["saved"]) == ("4", 1, False)
    assert body["error"].startswith("This mark was changed to 4 at ")
    assert body["error"].endswith("reload to see the current value before changing it.")
    assert _snapshot() == before


def test_a_user_no_longer_in_the_juror_group_cannot_save_to_their_old_sheet(client, contest, juror):
    label = _labels(contest)[0]
    client.force_login(juror)
    assert _save(client, contest, label, "A1", "4", 0).status_code == 200
    juror.groups.clear()
    before = _snapshot()
    assert _save(client, contest, label, "A1", "6", 1).status_code == 404
    assert _snapshot() == before


def test_a_save_without_a_version_is_refused(client, contest, juror):
    label = _labels(contest)[0]
    client.force_login(juror)
    before = _snapshot()
    response = client.post(_cell_url(contest, label, "A1"), {"points": "2"})
    assert response.status_code == 400
    assert _snapshot() == before


def test_a_note_is_saved_with_the_mark_keeping_its_points(client, contest, juror):
    label = _labels(contest)[0]
    mark_set(mark=_mark(juror, label, "A1"), points=Decimal("3"), actor=juror, channel="browser")
    client.force_login(juror)
    response = client.post(
        _cell_url(contest, label, "A1", "sheet_note_save"),
        {"note": " credit for the rule despite a typo ", "version": 1},
    )
    assert response.json() == {
        "points": "3",
        "note": "credit for the rule despite a typo",
        "version": 2,
        "saved": True,
    }
    event = _mark(juror, label, "A1").events.get(version=2)
    assert (event.old_points, event.new_points, event.old_note, event.new_note) == (
        Decimal("3"),
        Decimal("3"),
        "",
        "credit for the rule despite a typo",
    )


def test_a_note_longer_than_the_limit_is_refused(client, contest, juror):
    label = _labels(contest)[0]
    client.force_login(juror)
    before = _snapshot()
    response = client.post(
        _cell_url(contest, label, "A1", "sheet_note_save"), {"note": "x" * 501, "version": 0}
    )
    assert response.status_code == 422
    assert response.json()["error"] == (
        "The note is 501 characters long; shorten it to 500 at most."
    )
    assert _snapshot() == before


def test_history_lists_every_change_of_the_cell_with_who_and_channel(client, contest, juror):
    label = _labels(contest)[0]
    mark = _mark(juror, label, "T1")
    mark_set(mark=mark, points=Decimal("2"), actor=juror, channel="browser")
    mark_set(mark=mark, points=Decimal("3"), actor=juror, channel="xlsx")
    client.force_login(juror)
    response = client.get(_cell_url(contest, label, "T1", "sheet_cell_history"), {"partial": "1"})
    assert [
        (event.version, event.channel, event.old_points, event.new_points)
        for event in response.context["events"]
    ] == [(2, "xlsx", Decimal("2"), Decimal("3")), (1, "browser", None, Decimal("2"))]
    html = response.content.decode()
    assert (html.count("2 → 3"), html.count("blank → 2"), html.count("XLSX upload")) == (1, 1, 1)
    full = client.get(_cell_url(contest, label, "T1", "sheet_cell_history"))
    assert full.templates[0].name == "grading/sheet_history.html"


# ---- submitting and the phases ------------------------------------------------------------------


def test_submitting_with_blank_cells_is_refused_naming_them(client, contest, juror):
    first = _labels(contest)[0]
    mark_set(mark=_mark(juror, first, "A1"), points=Decimal("1"), actor=juror, channel="browser")
    client.force_login(juror)
    response = client.post(reverse("sheet_submit", args=[contest.slug, 1]), follow=True)
    text = [str(message) for message in response.context["messages"]]
    assert len(text) == 1
    assert text[0].startswith("5 cells are still blank (")
    assert text[0].endswith("give every cell a value before submitting.")
    assert Sheet.objects.get(juror=juror, problem__number=1).state == "draft"


def test_a_submitted_sheet_is_read_only_until_resolution_then_revisions_are_recorded(
    client, contest, juror
):
    _fill(juror, contest, "2")
    client.force_login(juror)
    client.post(reverse("sheet_submit", args=[contest.slug, 1]))
    sheet = Sheet.objects.get(juror=juror, problem__number=1)
    assert sheet.state == "submitted"
    assert sheet.submitted_at is not None
    label = _labels(contest)[0]
    before = _snapshot()
    refused = _save(client, contest, label, "A1", "3", 1)
    assert refused.status_code == 403
    assert refused.json()["error"].endswith(
        "it is read-only until the contest enters the resolution phase."
    )
    page = client.get(reverse("sheet", args=[contest.slug, 1]))
    assert page.context["locked"] is True
    assert page.content.decode().count(" readonly") == 6 + 1  # six cells and the note
    assert _snapshot() == before

    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.RESOLUTION)
    revised = _save(client, contest, label, "A1", "3", 1)
    assert revised.status_code == 200
    assert list(_mark(juror, label, "A1").events.values_list("new_points", flat=True)) == [
        Decimal("2"),
        Decimal("3"),
    ]
    assert Sheet.objects.get(pk=sheet.pk).state == "submitted"


def test_marks_of_a_final_contest_cannot_change(client, contest, juror):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    client.force_login(juror)
    before = _snapshot()
    response = _save(client, contest, _labels(contest)[0], "A1", "3", 0)
    assert response.status_code == 403
    assert response.json()["error"] == "The contest is final; marks can no longer change."
    assert _snapshot() == before


# ---- query counts and independence -------------------------------------------------------------


def _sheet_queries(client, juror, slug: str) -> int:
    client.force_login(juror)
    url = reverse("sheet", args=[slug, 1])
    client.get(url)  # the first visit may create the sheet; count a steady visit
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


def test_sheet_page_runs_the_same_number_of_queries_with_5_and_300_papers(client, db):
    juror = factories.make_user("dora", "juror")
    small = factories.make_contest("small", problems=1, papers=5)
    large = factories.make_contest("large", problems=1, papers=300)
    factories.assign(small, [juror])
    factories.assign(large, [juror])
    assert _sheet_queries(client, juror, "small") == _sheet_queries(client, juror, "large")


BOB_POINTS = "7.5"
BOB_NOTE = "BOB-SECRET-NOTE"


def _independence_urls(client, contest, juror) -> dict[str, object]:
    """Every page, partial, JSON answer and download of the sheet, plus whatever the crawler
    reaches from home."""
    responses = crawl(client)
    labels = _labels(contest)
    for label in labels:
        for code in ("A1", "T1"):
            url = _cell_url(contest, label, code, "sheet_cell_history")
            responses[url] = client.get(url, {"partial": "1"})
        url = reverse("sheet_solution", args=[contest.slug, 1, label])
        responses[url] = client.get(url)
    responses["ungraded"] = client.get(reverse("sheet", args=[contest.slug, 1]), {"ungraded": 1})
    responses["save"] = _save(
        client, contest, labels[0], "T1", "1", _mark(juror, labels[0], "T1").version
    )
    responses["stale"] = _save(client, contest, labels[0], "T1", "2", 0)
    xlsx = client.get(reverse("sheet_xlsx", args=[contest.slug, 1]))
    responses["xlsx"] = xlsx
    upload = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": _named(xlsx.content)},
        follow=True,
    )
    responses["preview"] = upload
    return responses


def _named(data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("sheet.xlsx", data)


# Times of day with fractions of a second ("06:02:17.512345" in the workbook's stamp) can hold
# "7.5" by chance; they are not marks.
TIME_OF_DAY = re.compile(r"\d\d:\d\d:\d\d\.\d+")


def _leaks(responses) -> list[str]:
    texts = {
        url: TIME_OF_DAY.sub("", response_text(response)) for url, response in responses.items()
    }
    return [url for url, text in texts.items() if BOB_POINTS in text or BOB_NOTE in text]


def test_no_page_or_file_a_juror_reaches_shows_another_jurors_marks_before_submitting(
    client, contest, juror, other_juror
):
    _fill(other_juror, contest, BOB_POINTS, BOB_NOTE)
    Sheet.objects.filter(juror=other_juror).update(state="submitted")
    mark_set(
        mark=_mark(juror, _labels(contest)[0], "A1"),
        points=Decimal("2"),
        actor=juror,
        channel="browser",
    )
    client.force_login(juror)
    responses = _independence_urls(client, contest, juror)
    assert len(responses) >= 15
    assert {
        url: response.status_code
        for url, response in responses.items()
        if response.status_code not in (200, 409)
    } == {}
    assert _leaks(responses) == []


def test_after_submitting_the_sheet_still_shows_only_the_jurors_own_marks(
    client, contest, juror, other_juror
):
    _fill(other_juror, contest, BOB_POINTS, BOB_NOTE)
    _fill(juror, contest, "2")
    client.force_login(juror)
    client.post(reverse("sheet_submit", args=[contest.slug, 1]))
    assert Sheet.objects.get(juror=juror, problem__number=1).state == "submitted"
    responses = {
        "sheet": client.get(reverse("sheet", args=[contest.slug, 1])),
        "xlsx": client.get(reverse("sheet_xlsx", args=[contest.slug, 1])),
    }
    for label in _labels(contest):
        url = _cell_url(contest, label, "A1", "sheet_cell_history")
        responses[url] = client.get(url, {"partial": "1"})
    assert _leaks(responses) == []


def test_a_revision_to_agreement_during_resolution_closes_the_cell_as_consensus(
    client, contest, juror, other_juror
):
    from grading.models import Resolution

    _fill(juror, contest, "2")
    _fill(other_juror, contest, "2")
    label = _labels(contest)[0]
    mark_set(
        mark=_mark(other_juror, label, "A1"),
        points=Decimal("4"),
        actor=other_juror,
        channel="browser",
    )
    from django.utils import timezone

    Sheet.objects.update(state=Sheet.State.SUBMITTED, submitted_at=timezone.now())
    Contest.objects.filter(pk=contest.pk).update(state="resolution")
    mark = _mark(juror, label, "A1")
    client.force_login(juror)
    assert _save(client, contest, label, "A1", "4", mark.version).status_code == 200
    resolution = Resolution.objects.get(criterion__code="A1", paper__labels__label=label)
    assert (resolution.kind, resolution.points) == ("consensus", Decimal("4"))


def test_a_save_holds_the_sheet_and_contest_and_reads_their_state_until_it_has_written(
    client, contest, juror
):
    """What keeps a save from slipping past a submission or a finalization that commits
    meanwhile: the sheet's and contest's state is read inside the save's transaction, which on
    SQLite runs after BEGIN IMMEDIATE (writers queue up) and on PostgreSQL holds the sheet and
    contest rows shared before the read (the race itself is tried in
    test_postgres_locking.py). The cell's lookup comes before, outside the write lock."""
    label = _labels(contest)[0]
    client.force_login(juror)
    with CaptureQueriesContext(connection) as queries:
        assert _save(client, contest, label, "A1", "3", 0).status_code == 200
    statements = [query["sql"].strip() for query in queries.captured_queries]
    lookup = next(i for i, sql in enumerate(statements) if '"grading_paperlabel"' in sql)
    state = next(
        i
        for i, sql in enumerate(statements)
        if sql.startswith('SELECT "grading_sheet"."state"') and '"rubrics_contest"."state"' in sql
    )
    event = next(i for i, sql in enumerate(statements) if sql.startswith("INSERT INTO"))
    # (The test runs inside a transaction of its own, so the view's opens as a savepoint.)
    opened = next(i for i, sql in enumerate(statements) if sql.startswith("SAVEPOINT"))
    released = [i for i, sql in enumerate(statements) if sql.startswith("RELEASE SAVEPOINT")]
    assert lookup < opened < state < event < released[-1]
    assert statements[opened].split()[-1] == statements[released[-1]].split()[-1]
    if connection.vendor == "sqlite":
        assert connection.settings_dict["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    else:
        hold = next(i for i, sql in enumerate(statements) if sql.endswith("FOR SHARE OF s, c"))
        assert opened < hold < state


def test_a_saves_lookup_asks_the_label_assignment_and_role_in_subqueries_not_joins(
    client, contest, juror
):
    """The cell's lookup joins only the mark's own rows (sheet, problem, contest, round,
    criterion): joining the label, the assignment and the role as well made PostgreSQL spend
    10-40 ms planning every save and walk every mark of each assigned paper (bench/load.py,
    issue 32). The rules stay the lookup's: another juror's cell is still a 404."""
    label = _labels(contest)[0]
    client.force_login(juror)
    with CaptureQueriesContext(connection) as queries:
        assert _save(client, contest, label, "A1", "3", 0).status_code == 200
    lookup = next(q["sql"] for q in queries.captured_queries if '"grading_paperlabel"' in q["sql"])
    for table in ("grading_paperlabel", "grading_assignment", "auth_group", "grading_paper"):
        assert f'JOIN "{table}" ON' not in lookup
    dave = factories.make_user("dave", "juror")
    client.force_login(dave)
    assert _save(client, contest, label, "A1", "2", 1).status_code == 404


def test_a_submission_committed_after_a_saves_lookup_refuses_the_save(contest, juror):
    """The state a save acts on is the one read inside its transaction, not the lookup's."""
    from django.core.exceptions import ValidationError
    from django.db import transaction
    from django.utils import timezone

    from grading.marking.selectors import own_cell, own_cell_hold
    from grading.marking.sheets import sheet_cell_set

    label = _labels(contest)[0]
    mark = own_cell(
        juror=juror, contest_slug=contest.slug, problem_number=1, label=label, code="A1"
    )
    assert mark is not None and not mark.sheet.is_submitted
    before = _snapshot()
    # Another request submits the sheet between the lookup and the save's transaction.
    Sheet.objects.filter(pk=mark.sheet_id).update(
        state=Sheet.State.SUBMITTED, submitted_at=timezone.now()
    )
    with pytest.raises(ValidationError), transaction.atomic():
        own_cell_hold(mark)
        assert mark.sheet.is_submitted
        sheet_cell_set(
            sheet=mark.sheet, mark=mark, points=Decimal("3"), expected_version=0, actor=juror
        )
    assert _snapshot() == before


def test_submitting_reads_the_blank_cells_inside_its_transaction_after_holding_the_sheet(
    contest, juror
):
    """A save clearing a cell cannot slip between reading the blanks and marking the sheet
    submitted: both happen in one transaction, the blanks read after the sheet's row is taken
    (FOR UPDATE on PostgreSQL; SQLite's write lock is held from the transaction's start)."""
    from grading.marking.sheets import sheet_submit

    _fill(juror, contest, "1")
    sheet = Sheet.objects.get(juror=juror, problem__number=1)
    with CaptureQueriesContext(connection) as captured:
        sheet_submit(sheet=sheet, actor=juror)
    sql = [query["sql"] for query in captured.captured_queries]
    lock = next(i for i, q in enumerate(sql) if 'FROM "grading_sheet"' in q)
    blanks = next(i for i, q in enumerate(sql) if 'FROM "grading_mark"' in q)
    update = next(i for i, q in enumerate(sql) if q.startswith('UPDATE "grading_sheet"'))
    assert lock < blanks < update
    assert not any(q.startswith(("COMMIT", "RELEASE")) for q in sql[lock:update])
