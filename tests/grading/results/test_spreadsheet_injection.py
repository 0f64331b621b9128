"""Hostile system names and chair reasons leave every CSV and XLSX as text, never as formulas.

System names come from participants; a spreadsheet runs a cell that starts with `=`, `+`, `-`,
`@`, tab or carriage return. Every export path is tried: the results tables (wide and long, CSV
and XLSX) through the function, the `export_results` command and the download view, and
`autoscore --csv` / `--per-task`, to files and to standard output."""

import csv
import io
import json
import re
import shutil
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from grading.console.contest_life import contest_finalize, contest_resolution_open
from grading.intake.importers import outputs_import, problemset_import
from grading.models import Mark, Paper
from grading.resolution.comparison import contest_results
from grading.resolution.decisions import discrepancy_decide, mark_revise
from grading.results.exports import results_export
from grading.rules import roles
from grading.rules.spreadsheets import safe_text
from rubrics.models import Criterion
from tests.crawl import refetched, shared_data
from tests.factories import assign, make_contest, make_user
from tests.grading import scenario

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "importers"
PROBLEMSET = [FIXTURES / "problemset" / "test.csv", FIXTURES / "problemset" / "solution.csv"]
HERON = FIXTURES / "outputs" / "heron.csv"
KESTREL = FIXTURES / "outputs" / "records" / "04_team-kestrel"

HYPERLINK = '=HYPERLINK("http://evil.example/?x","Click")'
HOSTILE = [HYPERLINK, "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]
# A spreadsheet reads these as a formula; the rule prefixes an apostrophe.
NEUTRALISED = [f"'{name}" for name in HOSTILE]
REASON = "=1+1 Rule 2 stated, not applied."
# XML keeps no bare carriage return: an XLSX cell reads back with a line feed in its place.
NEUTRALISED_XLSX = [name.replace("\r", "\n") for name in NEUTRALISED]
STARTS = ("=", "+", "-", "@", "\t", "\r")
# A figure as the exports write one: never a sign other than minus, never an expression.
NUMBER = re.compile(r"-?\d+(\.\d+)?")


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


# --- The rule ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        *zip(HOSTILE, NEUTRALISED, strict=True),
        ("Team Orca", "Team Orca"),
        ("", ""),
        ("a=1", "a=1"),
        ("'=1", "'=1"),
    ],
)
def test_text_that_starts_like_a_formula_gets_a_leading_apostrophe(value, expected):
    assert safe_text(value) == expected


@pytest.mark.parametrize("value", [-2, 0, 7, Decimal("-2.5"), Decimal("12"), -0.5, None, True])
def test_numbers_and_none_are_left_alone_negative_ones_included(value):
    assert safe_text(value) is value


# --- Helpers -----------------------------------------------------------------------------------


def _csv_rows(content: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content, newline=""), strict=True))


def _assert_csv_runs_nothing(content: str) -> list[list[str]]:
    rows = _csv_rows(content)
    for row in rows:
        for field in row:
            assert not field.startswith(STARTS) or NUMBER.fullmatch(field), (field, row)
    return rows


def _column(rows: list[list[str]], name: str) -> list[str]:
    index = rows[0].index(name)
    return [row[index] for row in rows[1:]]


def _assert_xlsx_runs_nothing(content: bytes) -> list[tuple]:
    sheet = load_workbook(io.BytesIO(content)).active
    for row in sheet.iter_rows():
        for cell in row:
            assert cell.data_type != "f", (cell.coordinate, cell.value)
            if isinstance(cell.value, str):
                assert not cell.value.startswith(STARTS), (cell.coordinate, cell.value)
    return list(sheet.iter_rows(values_only=True))


def _xlsx_column(rows: list[tuple], name: str) -> list:
    index = rows[0].index(name)
    return [row[index] for row in rows[1:]]


# --- Results exports ---------------------------------------------------------------------------


def _build_hostile_world():
    """The resolution scenario with the systems named by HOSTILE (Orca's, Heron's and Lynx's
    marks, then Lynx's again), settled with a hostile reason from the chair, a juror whose
    username starts with "-" and a criterion code starting with "@", then finalized."""
    plan = [scenario.MARKS["Team Orca"], scenario.MARKS["Team Heron"]]
    plan += [scenario.MARKS["Team Lynx"]] * (len(HOSTILE) - 2)
    graded = scenario.build(marks=dict(zip(HOSTILE, plan, strict=True)))
    users, papers, problems = graded["users"], graded["papers"], graded["problems"]
    contest_resolution_open(contest=graded["contest"], actor=graded["chair"])
    bob = Mark.objects.get(sheet__juror=users["bob"], paper=papers["+1"], criterion__code="A1")
    mark_revise(mark=bob, points=Decimal("8"), actor=users["bob"])
    discrepancy_decide(
        paper=papers[HYPERLINK],
        criterion=problems[1].criteria.get(code="T1"),
        points=Decimal("7"),
        reason=REASON,
        actor=graded["chair"],
    )
    graded["contest"].refresh_from_db()
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    graded["contest"].refresh_from_db()
    User.objects.filter(username="dan").update(username="-dan")
    Criterion.objects.filter(problem=problems[2], code="A1").update(code="@A1")
    return graded


@pytest.fixture(scope="module")
def hostile_world_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_hostile_world()


@pytest.fixture
def hostile_world(hostile_world_once, db):
    return refetched(hostile_world_once)


@pytest.mark.parametrize("long", [False, True])
def test_results_csv_neutralises_identities_reasons_usernames_and_codes(hostile_world, long):
    results = contest_results(hostile_world["contest"], identities=True, with_marks=long)
    content = results_export(results, long=long, identities=True, fmt="csv")
    rows = _assert_csv_runs_nothing(content.decode("utf-8"))
    assert sorted(set(_column(rows, "identity"))) == sorted(NEUTRALISED)
    if long:
        assert sorted(set(_column(rows, "reason"))) == ["", f"'{REASON}"]
        jurors = {name for slot in (1, 2, 3) for name in _column(rows, f"juror {slot}")}
        assert sorted(jurors) == ["", "'-dan", "alice", "bob", "charlie", "erin"]
        assert sorted(set(_column(rows, "criterion"))) == ["'@A1", "A1", "T1"]


@pytest.mark.parametrize("long", [False, True])
def test_results_xlsx_holds_text_not_formulas(hostile_world, long):
    results = contest_results(hostile_world["contest"], identities=True, with_marks=long)
    rows = _assert_xlsx_runs_nothing(
        results_export(results, long=long, identities=True, fmt="xlsx")
    )
    assert sorted(set(_xlsx_column(rows, "identity"))) == sorted(NEUTRALISED_XLSX)
    if long:
        assert sorted(set(_xlsx_column(rows, "reason")) - {None, ""}) == [f"'{REASON}"]
        jurors = {name for slot in (1, 2, 3) for name in _xlsx_column(rows, f"juror {slot}")}
        assert sorted(jurors - {None, ""}) == ["'-dan", "alice", "bob", "charlie", "erin"]
        assert sorted(set(_xlsx_column(rows, "criterion"))) == ["'@A1", "A1", "T1"]
        # Points stay numbers.
        assert {type(value) for value in _xlsx_column(rows, "agreed")} <= {int, float}


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
@pytest.mark.parametrize("long", [False, True])
def test_export_results_command_writes_no_formula(hostile_world, tmp_path, fmt, long):
    out = tmp_path / f"results.{fmt}"
    call_command(
        "export_results",
        contest="iol",
        format=fmt,
        out=str(out),
        long=long,
        identities=True,
        verbosity=0,
    )
    if fmt == "csv":
        rows = _assert_csv_runs_nothing(out.read_bytes().decode("utf-8"))
        assert sorted(set(_column(rows, "identity"))) == sorted(NEUTRALISED)
    else:
        rows = _assert_xlsx_runs_nothing(out.read_bytes())
        assert sorted(set(_xlsx_column(rows, "identity"))) == sorted(NEUTRALISED_XLSX)


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
@pytest.mark.parametrize("table", ["wide", "long"])
def test_results_download_writes_no_formula(hostile_world, client, fmt, table):
    client.force_login(hostile_world["chair"])
    response = client.get(reverse("results_export", args=["iol", fmt]), {"table": table})
    assert response.status_code == 200
    if fmt == "csv":
        rows = _assert_csv_runs_nothing(response.content.decode("utf-8"))
        assert sorted(set(_column(rows, "identity"))) == sorted(NEUTRALISED)
    else:
        rows = _assert_xlsx_runs_nothing(response.content)
        assert sorted(set(_xlsx_column(rows, "identity"))) == sorted(NEUTRALISED_XLSX)


# --- autoscore --csv and --per-task ------------------------------------------------------------


@pytest.fixture
def imported(db, tmp_path):
    """Systems with hostile names imported through the real importers, in all three shapes: a
    record folder whose metadata names the team, submission CSVs named by --system, and raw
    JSONL lines with a "system" field. The importers strip names, so the tab's name arrives as
    "=1"."""
    problemset_import(contest_slug="oru30", paths=PROBLEMSET)
    record = tmp_path / "records" / "04_record"
    shutil.copytree(KESTREL, record)
    metadata = json.loads((record / "metadata.json").read_text(encoding="utf-8"))
    (record / "metadata.json").write_text(json.dumps({**metadata, "team": HYPERLINK}))
    outputs_import(contest_slug="oru30", paths=[record])
    for system in ("+1", "-2+3"):
        outputs_import(contest_slug="oru30", paths=[HERON], system=system)
    raw = tmp_path / "raw.jsonl"
    raw.write_text(
        "".join(
            json.dumps({"system": system, "id": "12030010100", "output": "Answer: pake"}) + "\n"
            for system in ("@SUM(A1)", "\t=1")
        ),
        encoding="utf-8",
    )
    outputs_import(contest_slug="oru30", paths=[raw])
    # Every paper but the module's hostile world's (contest iol), which may be there already.
    identities = sorted(
        Paper.objects.exclude(contest__slug="iol").values_list("identity", flat=True)
    )
    assert identities == sorted([HYPERLINK, "+1", "-2+3", "@SUM(A1)", "=1"])
    return [f"'{identity}" for identity in identities]


def test_autoscore_csv_neutralises_system_names(imported, tmp_path):
    path = tmp_path / "scores.csv"
    call_command("autoscore", contest="oru30", csv_path=path, verbosity=0)
    rows = _assert_csv_runs_nothing(path.read_bytes().decode("utf-8-sig"))
    assert sorted(_column(rows, "system")) == imported


def test_autoscore_per_task_csv_neutralises_system_names(imported, tmp_path):
    path = tmp_path / "tasks.csv"
    call_command("autoscore", "--contest", "oru30", "--per-task", str(path), verbosity=0)
    rows = _assert_csv_runs_nothing(path.read_bytes().decode("utf-8-sig"))
    assert sorted(set(_column(rows, "system"))) == imported


@pytest.mark.parametrize("option", ["--csv", "--per-task"])
def test_autoscore_writes_a_neutralised_csv_to_standard_output_for_a_dash(
    imported, tmp_path, monkeypatch, option
):
    monkeypatch.chdir(tmp_path)
    out, err = StringIO(), StringIO()
    call_command("autoscore", "--contest", "oru30", option, "-", stdout=out, stderr=err)
    assert not (tmp_path / "-").exists()
    # Standard output holds the CSV alone; the ranking and the summary went to standard error.
    rows = _assert_csv_runs_nothing(out.getvalue())
    assert rows[0][0] == "system"
    assert sorted(set(_column(rows, "system"))) == imported
    assert err.getvalue().splitlines()[-1] == "Scored 5 papers of oru30."


def test_the_jurors_workbook_keeps_scheme_text_as_text_and_still_uploads(client, db):
    """The juror's own sheet: a criterion's title and guidance starting with "=" are written as
    text, not formulas; the row totals stay formulas; the unchanged file uploads cleanly."""
    # The conftest's `contest`, with names of its own: the module's hostile world (alice, bob,
    # charlie...) may be there already.
    juror = make_user("ada", roles.JUROR)
    contest = make_contest(identities=["Team Orca", "Team Heron", "Team Lynx"])
    assign(contest, [juror, make_user("ben", roles.JUROR)], problems=[1])
    assign(contest, [make_user("cy", roles.JUROR)], problems=[2])
    hostile = '=HYPERLINK("http://evil.example/?x","Click")'
    Criterion.objects.filter(problem__contest=contest, code="A1").update(
        title=hostile, guidance="=1+1"
    )
    client.force_login(juror)
    content = client.get(reverse("sheet_xlsx", args=[contest.slug, 1])).content
    book = load_workbook(io.BytesIO(content))
    guidance = book["Guidance"]
    a1 = next(row for row in guidance.iter_rows(min_row=2) if row[0].value == "A1")
    assert [(a1[2].value, a1[2].data_type), (a1[5].value, a1[5].data_type)] == [
        (hostile, "s"),
        ("=1+1", "s"),
    ]
    formulas = [
        cell
        for row in book.worksheets
        for r in row.iter_rows()
        for cell in r
        if cell.data_type == "f"
    ]
    assert {cell.parent.title for cell in formulas} == {"Marks"}
    assert all(cell.value.startswith("=SUM(") for cell in formulas)
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", content)},
    )
    pending = client.get(response["Location"]).context["pending"]
    assert (pending["errors"], pending["changes"]) == ([], [])
