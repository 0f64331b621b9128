"""A chair's decision stands, and a submitted mark is never blanked, whichever door a juror uses:
the discussion page, the sheet's autosave or an XLSX upload all end in `mark_set`, which refuses
with the same sentence. Also: request input is read by forms (a garbled version is a 400 or a
message, never a 500), and reopening a final contest is one recorded organizer action."""

import io
from decimal import Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.console.contest_life import contest_finalize
from grading.models import ContestEvent, Mark, MarkEvent, Resolution
from grading.resolution.comparison import contest_results
from grading.resolution.decisions import discrepancy_decide
from rubrics.models import Contest
from tests.crawl import refetched, shared_data
from tests.factories import make_user
from tests.grading import scenario

D = Decimal
DECIDED = "The chair decided criterion T1 for this paper (7 points); only the chair can change it."


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


def _build_decided():
    """The scenario in resolution, with the chair's decision on Orca's P1 T1 (8, 8, 6 → 7)."""
    graded = scenario.build()
    scenario.open_resolution(graded)
    discrepancy_decide(
        paper=graded["papers"]["Team Orca"],
        criterion=graded["problems"][1].criteria.get(code="T1"),
        points=D("7"),
        reason="Half of item 3.",
        actor=graded["chair"],
    )
    graded["label"] = scenario.label(graded, "Team Orca", 1)
    return graded


@pytest.fixture(scope="module")
def decided_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_decided()


@pytest.fixture
def decided(decided_once, db):
    return refetched(decided_once)


def _alice_mark(graded, code="T1", identity="Team Orca", juror="alice") -> Mark:
    return Mark.objects.get(
        sheet__juror=graded["users"][juror],
        paper=graded["papers"][identity],
        criterion__code=code,
        sheet__problem__number=1,
    )


def _record():
    return (
        sorted(Mark.objects.values_list("pk", "points", "version")),
        MarkEvent.objects.count(),
        sorted(Resolution.objects.values_list("pk", "kind", "points")),
    )


def _autosave(client, graded, label, code, points, version, juror="alice"):
    client.force_login(graded["users"][juror])
    url = reverse("sheet_cell_save", args=[graded["contest"].slug, 1, label, code])
    return client.post(url, {"points": points, "version": version})


def test_the_sheets_autosave_cannot_override_a_chair_decision(client, decided):
    mark = _alice_mark(decided)
    before = _record()
    response = _autosave(client, decided, decided["label"], "T1", "6", mark.version)
    assert (response.status_code, response.json()["error"]) == (403, DECIDED)
    assert response.json()["points"] == "8"
    assert _record() == before
    orca = contest_results(decided["contest"]).paper(decided["papers"]["Team Orca"].pk)
    assert orca.cells[mark.criterion_id].points == D("7")


def test_an_xlsx_upload_flags_a_chair_decided_cell_in_its_preview_and_writes_the_rest(
    client, decided
):
    client.force_login(decided["users"]["alice"])
    slug = decided["contest"].slug
    book = openpyxl.load_workbook(
        io.BytesIO(client.get(reverse("sheet_xlsx", args=[slug, 1])).content)
    )
    row = next(c.row for c in book["Marks"]["A"] if c.value == decided["label"])
    book["Marks"].cell(row=row, column=3).value = 6  # column C is T1
    lynx = scenario.label(decided, "Team Lynx", 1)
    lynx_row = next(c.row for c in book["Marks"]["A"] if c.value == lynx)
    lynx_a1 = _alice_mark(decided, "A1", "Team Lynx")
    revised = lynx_a1.points - D("0.5")
    book["Marks"].cell(row=lynx_row, column=2).value = float(revised)
    buffer = io.BytesIO()
    book.save(buffer)
    before = _record()
    response = client.post(
        reverse("sheet_xlsx_upload", args=[slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", buffer.getvalue())},
    )
    pending = client.get(response["Location"]).context["pending"]
    assert pending["errors"] == []
    assert [
        (cell["row"], cell["column"], cell["file"], cell["app"], cell["reason"])
        for cell in pending["held"]
    ] == [(row, "C", "6", "8", DECIDED)]
    assert [(change["label"], change["code"]) for change in pending["changes"]] == [(lynx, "A1")]
    assert _record() == before
    response = client.post(
        reverse("sheet_xlsx_confirm", args=[slug, 1]),
        {"token": pending["token"], "action": "confirm"},
        follow=True,
    )
    messages = [str(message) for message in response.context["messages"]]
    assert messages == ["1 mark changed from “sheet.xlsx”."]
    assert (_alice_mark(decided).points, _alice_mark(decided, "A1", "Team Lynx").points) == (
        D("8"),
        revised,
    )
    orca = contest_results(decided["contest"]).paper(decided["papers"]["Team Orca"].pk)
    assert orca.cells[_alice_mark(decided).criterion_id].points == D("7")


def test_the_sheet_cannot_blank_a_submitted_mark(client, decided):
    label = scenario.label(decided, "Team Lynx", 1)
    mark = _alice_mark(decided, "A1", "Team Lynx")
    before = _record()
    response = _autosave(client, decided, label, "A1", "", mark.version)
    assert (response.status_code, response.json()["error"]) == (
        403,
        "Criterion A1: a submitted mark cannot be blank; give the revised points.",
    )
    assert _record() == before
    assert contest_results(decided["contest"]).pending_cells == []


def test_the_sheet_still_revises_a_cell_the_chair_has_not_decided(client, decided):
    label = scenario.label(decided, "Team Heron", 1)
    mark = _alice_mark(decided, "A1", "Team Heron", juror="bob")
    response = _autosave(client, decided, label, "A1", "8", mark.version, juror="bob")
    assert (response.status_code, response.json()["points"]) == (200, "8")
    resolution = Resolution.objects.get(paper=decided["papers"]["Team Heron"])
    assert (resolution.kind, resolution.points) == ("consensus", D("8.00"))


@pytest.mark.parametrize("version", ["²", "٣", "1e3", "-1", "99999999999999999999"])
def test_a_garbled_version_is_refused_as_a_bad_request_at_every_door(client, decided, version):
    mark = _alice_mark(decided, "A1", "Team Heron")
    before = _record()
    label = scenario.label(decided, "Team Heron", 1)
    response = _autosave(client, decided, label, "A1", "9", version)
    assert response.status_code == 400
    url = reverse("discussion_revise", args=[decided["contest"].slug, 1, label, "A1"])
    response = client.post(url, {"points": "9", "version": version}, follow=True)
    assert response.status_code == 200
    assert [str(m) for m in response.context["messages"]] == [
        "The version of the mark is not a whole number; reload the page and type the value again."
    ]
    assert _record() == before
    assert _alice_mark(decided, "A1", "Team Heron").version == mark.version


def _finalized(graded):
    discrepancy_decide(
        paper=graded["papers"]["Team Heron"],
        criterion=graded["problems"][1].criteria.get(code="A1"),
        points=D("8"),
        reason="Item 2.",
        actor=graded["chair"],
    )
    return contest_finalize(contest=graded["contest"], actor=graded["chair"])


def test_an_organizer_reopens_a_final_contest_with_a_reason_on_record(client, decided):
    contest = _finalized(decided)
    organizer = make_user("olwen", "organizer")
    client.force_login(organizer)
    url = reverse("reopen", args=[contest.slug])
    response = client.post(url, {"reason": "  "}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "Give the reason for reopening the contest; it stays on record."
    ]
    assert Contest.objects.get(pk=contest.pk).state == "final"

    client.post(url, {"reason": "A juror found a misread answer in P1."})
    assert Contest.objects.get(pk=contest.pk).state == "resolution"
    assert list(
        ContestEvent.objects.filter(contest=contest).values_list(
            "from_state", "to_state", "actor__username", "reason"
        )
    ) == [
        ("grading", "resolution", "chen", ""),
        ("resolution", "final", "chen", ""),
        ("final", "resolution", "olwen", "A juror found a misread answer in P1."),
    ]
    page = client.get(reverse("results", args=[contest.slug])).content.decode()
    assert "A juror found a misread answer in P1." in page


def test_only_an_organizer_reopens_a_final_contest(client, decided):
    contest = _finalized(decided)
    statuses = []
    for user in (decided["chair"], decided["users"]["alice"]):
        client.force_login(user)
        response = client.post(reverse("reopen", args=[contest.slug]), {"reason": "Why not."})
        statuses.append(response.status_code)
    # The chair reads the results page but may not reopen; a juror does not reach it at all.
    assert statuses == [403, 404]
    assert Contest.objects.get(pk=contest.pk).state == "final"
