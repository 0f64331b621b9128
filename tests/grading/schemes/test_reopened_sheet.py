"""A mark reopened by an amendment of the scheme, in its juror's sheet: shown (class, words and
the reason), open on a submitted sheet, re-confirmed with the same points (recorded, stamped
with the new version), re-marked, never blanked; the XLSX upload re-confirms through mark_set
too; and the sheet page's queries do not grow with the reopened marks."""

import io
import re
from decimal import Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.marking.marks import mark_set
from grading.models import Mark, MarkEvent
from grading.schemes.amend import scheme_amend
from tests.grading import scenario

pytestmark = pytest.mark.django_db
REASON = "T1 weighs more: the rule matters."


@pytest.fixture
def amended():
    graded = scenario.build()
    scheme_amend(
        graded["problems"][1],
        changes={"A1": {"points": "11"}, "T1": {"points": "9"}},
        reason=REASON,
        actor=graded["chair"],
    )
    return graded


def _mark(graded, juror: str, identity: str, code: str) -> Mark:
    return Mark.objects.get(
        sheet__juror=graded["users"][juror],
        paper=graded["papers"][identity],
        criterion__code=code,
    )


def _save(client, graded, identity, code, points, version):
    label = scenario.label(graded, identity, 1)
    return client.post(
        reverse("sheet_cell_save", args=[graded["contest"].slug, 1, label, code]),
        {"points": points, "version": version},
    )


def test_the_sheet_shows_the_reopened_cells_with_the_reason_and_their_count(client, amended):
    client.force_login(amended["users"]["alice"])
    response = client.get(reverse("sheet", args=[amended["contest"].slug, 1]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<strong>6 marks to re-confirm</strong>" in html
    # The submitted sheet's banner says which of its cells still take points.
    assert re.search(
        r'<p class="notice locked">You submitted this sheet at [0-9: -]+; it is read-only until '
        r"the contest enters the resolution phase\. Its 6 reopened marks stay open until you "
        r"re-confirm or re-mark them\.</p>",
        html,
    )
    assert html.count('class="reopened-tag" aria-hidden="true">re-confirm</span>') == 6
    assert html.count(f'aria-description="Reopened by scheme version 2: {REASON} ') == 6
    # A reopened cell of the submitted sheet is editable; the others stay read-only (none
    # here: every P1 mark of alice reopened).
    assert html.count('data-reopened="2"') == 6
    cells = re.findall(r'<input class="cell[^>]*>', html)
    assert (len(cells), [cell for cell in cells if " readonly" in cell]) == (6, [])


def _cell_sentences(html: str) -> dict[str, str]:
    """Each reopened cell's sentence, by its aria-label."""
    return dict(
        re.findall(
            r'<input class="cell[^>]*aria-label="([^"]+)"[^>]*aria-description="([^"]+)"', html
        )
    )


def test_a_reopened_cell_says_whether_enter_re_confirms_it_or_new_points_are_typed(client, amended):
    """Issue 31, finding 13: the sheet said both "read-only… cannot be typed" and "Press Enter
    to re-confirm", and offered Enter on a mark above the new maximum, which the save refuses."""
    client.force_login(amended["users"]["alice"])
    html = client.get(reverse("sheet", args=[amended["contest"].slug, 1])).content.decode()
    orca, heron, lynx = (
        scenario.label(amended, identity, 1)
        for identity in ("Team Orca", "Team Heron", "Team Lynx")
    )
    head = f"Reopened by scheme version 2: {REASON}"
    assert _cell_sentences(html) == {
        # 12 under a new maximum of 11: only new points close it.
        f"{orca} A1": f"{head} 12 is more than the 11 points this criterion allows, so Enter "
        "cannot re-confirm it: type new points.",
        f"{orca} T1": f"{head} Press Enter to re-confirm 8, or type new points.",
        f"{heron} A1": f"{head} Press Enter to re-confirm 8, or type new points.",
        f"{heron} T1": f"{head} Press Enter to re-confirm 4, or type new points.",
        f"{lynx} A1": f"{head} Press Enter to re-confirm 4, or type new points.",
        f"{lynx} T1": f"{head} Press Enter to re-confirm 2, or type new points.",
    }
    assertContains(
        client.get(reverse("sheet", args=[amended["contest"].slug, 1])),
        '<span id="reopened-unfit">1 reopened mark no longer fits the amended criterion: type '
        "new points there, since <kbd>Enter</kbd> cannot re-confirm it.</span>",
        html=True,
    )
    # The keys' line no longer says that nothing can be typed.
    assert re.findall(r'<p class="keys">.*</p>', html) == [
        '<p class="keys">Read-only but for the reopened cells (marked “re-confirm”, each saying '
        "what it takes): arrows, <kbd>Tab</kbd> and <kbd>Enter</kbd> move · <kbd>h</kbd> "
        "history.</p>"
    ]
    assert "cannot be typed" not in html

    # Once re-confirmed or re-marked, the sheet is read-only as any submitted sheet.
    for mark in Mark.objects.filter(
        sheet__juror=amended["users"]["alice"], reopened_by__isnull=False
    ):
        points = Decimal("11") if mark.points == Decimal("12") else mark.points
        mark_set(mark=mark, points=points, actor=amended["users"]["alice"], channel="browser")
    html = client.get(reverse("sheet", args=[amended["contest"].slug, 1])).content.decode()
    assert (_cell_sentences(html), "reopened-unfit" in html) == ({}, False)
    assert re.findall(r'<p class="keys">.*</p>', html) == [
        '<p class="keys">Read-only: arrows, <kbd>Tab</kbd> and <kbd>Enter</kbd> move · '
        "<kbd>h</kbd> history. Marks and notes cannot be typed here now.</p>"
    ]


def test_saving_the_same_points_re_confirms_the_mark_on_a_submitted_sheet(client, amended):
    alice = amended["users"]["alice"]
    client.force_login(alice)
    mark = _mark(amended, "alice", "Team Orca", "A1")
    assert mark.sheet.is_submitted and mark.reopened_by is not None

    # 12 no longer fits the new maximum of 11: re-confirming it is refused, it must be re-marked.
    response = _save(client, amended, "Team Orca", "A1", "12", mark.version)
    assert (response.status_code, response.json()["error"]) == (
        422,
        "Criterion A1: 12 is more than the 11 points this criterion allows.",
    )
    mark.refresh_from_db()
    assert (mark.points, mark.reopened_by_id is not None) == (Decimal("12"), True)

    t1 = _mark(amended, "alice", "Team Orca", "T1")
    response = _save(client, amended, "Team Orca", "T1", "8", t1.version)
    assert response.json() == {"points": "8", "note": "", "version": t1.version + 1, "saved": True}
    t1.refresh_from_db()
    assert (t1.points, t1.reopened_by, t1.scheme_version) == (Decimal("8"), None, 2)
    event = t1.events.order_by("-version").first()
    assert (event.actor, event.channel, event.old_points, event.new_points) == (
        alice,
        MarkEvent.Channel.BROWSER,
        Decimal("8"),
        Decimal("8"),
    )
    # Re-confirmed, it counts again, and the submitted sheet's rule holds it again.
    assert Mark.objects.submitted().filter(pk=t1.pk).exists()
    events = t1.events.count()
    assert _save(client, amended, "Team Orca", "T1", "8", t1.version).status_code == 403
    assert t1.events.count() == events


def test_a_reopened_mark_is_re_marked_but_never_blanked_and_the_others_stay_locked(client, amended):
    client.force_login(amended["users"]["bob"])
    a1 = _mark(amended, "bob", "Team Orca", "A1")
    blank = _save(client, amended, "Team Orca", "A1", "", a1.version)
    assert blank.status_code == 403
    assert blank.json()["error"] == (
        "Criterion A1: this mark was reopened by an amendment of the scheme; re-confirm its "
        "points or give new ones, not a blank."
    )
    remarked = _save(client, amended, "Team Orca", "A1", "11", a1.version)
    assert remarked.json()["saved"] is True
    a1.refresh_from_db()
    assert (a1.points, a1.reopened_by, a1.scheme_version) == (Decimal("11"), None, 2)
    # Re-marked, the mark is back to the submitted sheet's rule: read-only during grading.
    again = _save(client, amended, "Team Orca", "A1", "10", a1.version)
    assert again.status_code == 403
    a1.refresh_from_db()
    assert a1.points == Decimal("11")


def test_another_problem_s_submitted_sheet_stays_locked(client, amended):
    client.force_login(amended["users"]["charlie"])
    mark = _mark(amended, "charlie", "Team Orca", "A1")
    label = scenario.label(amended, "Team Orca", 2)
    response = client.post(
        reverse("sheet_cell_save", args=[amended["contest"].slug, 2, label, "A1"]),
        {"points": "9", "version": mark.version},
    )
    assert response.status_code == 403
    mark.refresh_from_db()
    assert mark.points == Decimal("10")


def test_an_uploaded_file_re_confirms_the_reopened_marks_it_keeps(client, amended):
    bob = amended["users"]["bob"]
    client.force_login(bob)
    slug = amended["contest"].slug
    book = openpyxl.load_workbook(
        io.BytesIO(client.get(reverse("sheet_xlsx", args=[slug, 1])).content)
    )
    # The A1 marks of 12 no longer fit: bob gives 11 there and keeps every T1 as it is.
    marks = book["Marks"]
    for row in range(3, 6):
        if marks.cell(row=row, column=2).value == 12:
            marks.cell(row=row, column=2).value = 11
    buffer = io.BytesIO()
    book.save(buffer)
    upload = client.post(
        reverse("sheet_xlsx_upload", args=[slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", buffer.getvalue())},
    )
    assert upload.status_code == 302
    pending = client.get(upload["Location"]).context["pending"]
    assert pending["errors"] == []
    assert len(pending["changes"]) == 6
    confirmed = client.post(
        reverse("sheet_xlsx_confirm", args=[slug, 1]),
        {"token": pending["token"], "action": "confirm"},
        follow=True,
    )
    assert [str(m) for m in confirmed.context["messages"]] == ["6 marks changed from “sheet.xlsx”."]
    bobs = Mark.objects.filter(sheet__juror=bob, sheet__problem=amended["problems"][1])
    assert bobs.filter(reopened_by__isnull=False).count() == 0
    assert sorted(bobs.values_list("scheme_version", flat=True)) == [2] * 6
    assert bobs.filter(points=Decimal("12")).count() == 0


def _sheet_queries(client, graded) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("sheet", args=[graded["contest"].slug, 1])).status_code == 200
    return len(queries)


def test_the_sheet_runs_as_many_queries_with_reopened_marks_as_without(client):
    graded = scenario.build()
    client.force_login(graded["users"]["alice"])
    before = _sheet_queries(client, graded)
    scheme_amend(
        graded["problems"][1],
        changes={"A1": {"points": "11"}, "T1": {"points": "9"}},
        reason=REASON,
        actor=graded["chair"],
    )
    assert _sheet_queries(client, graded) == before
