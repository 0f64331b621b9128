"""The jury evaluations export: each juror's mark as submitted and after revision, the agreed
value and how the cell was settled, on the resolution scenario (tests/grading/scenario.py);
inter-rater agreement recomputed from the file alone equals the analysis page's; who may
download it, what it names, its types, the command, and its query count."""

import csv
import io
import itertools
import zipfile
from decimal import Decimal

import openpyxl
import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertContains

from grading.jobs import running as jobs
from grading.models import Job, Mark, Paper, Resolution, Sheet
from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from grading.results.jury_evaluation_files import COLUMNS, jury_evaluations_export
from grading.results.jury_evaluations import (
    SETTLED_VALUES,
    WITHIN_TOLERANCE,
    jury_evaluations,
    settled_how,
)
from grading.rules import roles
from grading.rules.domain import CellStatus, Outcome
from rubrics.models import Contest
from tests.crawl import refetched, shared_data
from tests.factories import assign, make_contest, make_delegation, make_user
from tests.grading import scenario

D = Decimal
ANONYMOUS_COLUMNS = [
    "paper",
    "problem",
    "label",
    "criterion",
    "criterion_kind",
    "max_points",
    "juror",
    "submitted_points",
    "revised_points",
    "agreed_points",
    "settled",
    "reason",
    "scheme_version",
]


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _frame(content: bytes, fmt: str) -> pd.DataFrame:
    """The file as a researcher loads it: pandas' default options."""
    if fmt == "csv":
        return pd.read_csv(io.BytesIO(content))
    if fmt == "zip":
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            return pd.read_csv(io.BytesIO(archive.read("iol-jury-evaluations.csv")))
    return pd.read_excel(io.BytesIO(content), sheet_name="Jury evaluations")


def _export(graded, fmt: str, *, identities: bool = False) -> pd.DataFrame:
    data = jury_evaluations(graded["contest"], identities=identities)
    return _frame(jury_evaluations_export(data, fmt=fmt), fmt)


def _num(value):
    return None if pd.isna(value) else float(value)


def _rows(frame, identity_of, *, paper: str, problem: int, criterion: str):
    """(juror, submitted, revised, agreed, settled, reason) of one cell's rows."""
    code = identity_of[paper]
    cell = frame[
        (frame.paper == code) & (frame.problem == problem) & (frame.criterion == criterion)
    ]
    return [
        (
            r.juror,
            _num(r.submitted_points),
            _num(r.revised_points),
            _num(r.agreed_points),
            r.settled,
            "" if pd.isna(r.reason) else r.reason,
        )
        for r in cell.itertuples()
    ]


def _codes(graded) -> dict[str, str]:
    return {identity: paper.public_code for identity, paper in graded["papers"].items()}


# --- What the export holds ---------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "zip"])
def test_the_export_shows_each_jurors_mark_as_submitted_and_after_revision(graded, fmt):
    scenario.resolve(graded)
    frame = _export(graded, fmt)
    assert list(frame.columns) == ANONYMOUS_COLUMNS
    # Three papers; P1's two criteria by three jurors, P2's by two: ten rows a paper.
    assert len(frame) == 30
    codes = _codes(graded)
    # Bob gave Heron 9 for P1 A1 and revised it to 8 in discussion: both are in the file.
    assert _rows(frame, codes, paper="Team Heron", problem=1, criterion="A1") == [
        ("alice", 8.0, 8.0, 8.0, "consensus", ""),
        ("bob", 9.0, 8.0, 8.0, "consensus", ""),
        ("dan", 8.0, 8.0, 8.0, "consensus", ""),
    ]
    # The chair decided Orca's P1 T1 at 7; the jurors' marks stay as they gave them.
    assert _rows(frame, codes, paper="Team Orca", problem=1, criterion="T1") == [
        ("alice", 8.0, 8.0, 7.0, "chair", "Rule 2 stated, not applied."),
        ("bob", 8.0, 8.0, 7.0, "chair", "Rule 2 stated, not applied."),
        ("dan", 6.0, 6.0, 7.0, "chair", "Rule 2 stated, not applied."),
    ]
    # 2 and 2.5 are within P2 T1's tolerance of 0.5: agreed at the mean rounded down to 0.5.
    assert _rows(frame, codes, paper="Team Heron", problem=2, criterion="T1") == [
        ("charlie", 2.0, 2.0, 2.0, WITHIN_TOLERANCE, ""),
        ("erin", 2.5, 2.5, 2.0, WITHIN_TOLERANCE, ""),
    ]
    assert _rows(frame, codes, paper="Team Lynx", problem=2, criterion="A1") == [
        ("charlie", 3.0, 3.0, 3.0, "agreed", ""),
        ("erin", 3.0, 3.0, 3.0, "agreed", ""),
    ]
    heron = frame[frame.paper == codes["Team Heron"]]
    assert sorted(set(zip(heron.problem, heron.label, strict=True))) == [
        (1, scenario.label(graded, "Team Heron", 1)),
        (2, scenario.label(graded, "Team Heron", 2)),
    ]
    assert set(frame.scheme_version) == {1}
    assert list(frame.max_points[:2]) == [12, 12]


def test_rows_come_by_paper_problem_criterion_and_juror(graded):
    frame = _export(graded, "csv")
    keys = list(zip(frame.paper, frame.problem, frame.criterion, frame.juror, strict=True))
    order = {"A1": 0, "T1": 1}
    assert keys == sorted(keys, key=lambda k: (k[0], k[1], order[k[2]], k[3]))


def test_an_open_cell_has_no_agreed_value_and_the_marks_as_given(graded):
    frame = _export(graded, "csv")
    assert _rows(frame, _codes(graded), paper="Team Orca", problem=1, criterion="T1") == [
        ("alice", 8.0, 8.0, None, "open", ""),
        ("bob", 8.0, 8.0, None, "open", ""),
        ("dan", 6.0, 6.0, None, "open", ""),
    ]


def test_a_draft_sheets_marks_are_not_exported_and_its_cells_wait(graded):
    Sheet.objects.filter(juror=graded["users"]["dan"]).update(state=Sheet.State.DRAFT)
    frame = _export(graded, "csv")
    assert "dan" not in set(frame.juror)
    assert len(frame) == 30 - 3 * 2
    # Alice's and bob's 8s are in; dan's mark is missing: pending, at the value so far.
    assert _rows(frame, _codes(graded), paper="Team Orca", problem=1, criterion="T1") == [
        ("alice", 8.0, 8.0, 8.0, "pending", ""),
        ("bob", 8.0, 8.0, 8.0, "pending", ""),
    ]


def test_a_paper_moved_from_a_juror_leaves_their_marks_out(graded):
    orca = graded["papers"]["Team Orca"]
    orca.assignments.filter(juror=graded["users"]["dan"]).delete()
    frame = _export(graded, "csv")
    dan = frame[frame.juror == "dan"]
    assert sorted(set(dan.paper)) == sorted(
        p.public_code for name, p in graded["papers"].items() if name != "Team Orca"
    )


def test_the_scheme_version_is_the_marks_own(graded):
    heron = graded["papers"]["Team Heron"]
    Mark.objects.filter(sheet__juror=graded["users"]["erin"], paper=heron).update(scheme_version=2)
    frame = _export(graded, "csv")
    heron_p2 = frame[(frame.paper == heron.public_code) & (frame.problem == 2)]
    assert list(zip(heron_p2.juror, heron_p2.scheme_version, strict=True)) == [
        ("charlie", 1),
        ("erin", 2),
        ("charlie", 1),
        ("erin", 2),
    ]


# --- Inter-rater agreement from the export alone ----------------------------------------------


def _alpha_interval(units: list[list[float]]) -> float:
    """Krippendorff's alpha for interval data, straight from its definition: 1 − observed over
    expected disagreement, over every ordered pair of values within a unit (observed, each unit
    weighted 1/(m − 1)) and across all pairable values (expected)."""
    units = [u for u in units if len(u) >= 2]
    values = [v for u in units for v in u]
    n = len(values)
    observed = sum(
        sum((a - b) ** 2 for a, b in itertools.permutations(u, 2)) / (len(u) - 1) for u in units
    )
    expected = sum((a - b) ** 2 for a, b in itertools.permutations(values, 2)) / (n - 1)
    return 1 - observed / expected


def test_inter_rater_agreement_recomputed_from_the_export_equals_the_analysis(graded):
    scenario.resolve(graded)
    content = jury_evaluations_export(
        jury_evaluations(graded["contest"], identities=False), fmt="csv"
    )
    frame = pd.read_csv(io.BytesIO(content))
    # Bob's 9 (revised to 8) still counts as he submitted it.
    assert (frame.submitted_points != frame.revised_points).sum() == 1
    recomputed = []
    for problem, rows in frame.groupby("problem"):
        units = [
            list(cell.submitted_points.astype(float))
            for _, cell in rows.groupby(["paper", "criterion"])
        ]
        units = [u for u in units if len(u) >= 2]
        exact = sum(1 for u in units if min(u) == max(u))
        recomputed.append((f"P{problem}", len(units), exact, _alpha_interval(units)))
    analysis = contest_analysis(analysis_data(graded["contest"]), identities=False)
    shown = [
        (row.label, row.cells, row.exact, row.alpha) for row in analysis.agreement_by_problem[:-1]
    ]
    # Heron's P1 A1 (8, 9, 8), Orca's P1 T1 (8, 8, 6) and Heron's P2 T1 (2, 2.5) differ.
    assert [r[:3] for r in shown] == [("P1", 6, 4), ("P2", 6, 5)]
    assert [r[:3] for r in recomputed] == [r[:3] for r in shown]
    assert [r[3] for r in recomputed] == [pytest.approx(r[3]) for r in shown]


# --- Types and formulas ------------------------------------------------------------------------


def test_pandas_reads_points_as_numbers_and_codes_as_text(graded):
    scenario.resolve(graded)
    frame = _export(graded, "csv")
    kinds = {column: frame[column].dtype.kind for column in frame.columns}
    assert kinds == {
        "paper": "O",
        "problem": "i",
        "label": "O",
        "criterion": "O",
        "criterion_kind": "O",
        "max_points": "f",
        "juror": "O",
        "submitted_points": "f",
        "revised_points": "f",
        "agreed_points": "f",
        # Only the chair's cell has a reason: the others are blank, which pandas reads as NaN.
        "settled": "O",
        "reason": "O",
        "scheme_version": "i",
    }


def test_the_spreadsheet_has_numbers_for_points_text_for_codes_and_a_readme(graded):
    scenario.finalize(graded)
    data = jury_evaluations(graded["contest"], identities=True)
    book = openpyxl.load_workbook(io.BytesIO(jury_evaluations_export(data, fmt="xlsx")))
    assert book.sheetnames == ["Jury evaluations", "README"]
    rows = list(book["Jury evaluations"].iter_rows(values_only=True))
    header, first = rows[0], dict(zip(rows[0], rows[1], strict=True))
    assert header == tuple(ANONYMOUS_COLUMNS[:1] + ["identity", "kind"] + ANONYMOUS_COLUMNS[1:])
    types = {name: type(value).__name__ for name, value in first.items()}
    assert types == {
        "paper": "str",
        "identity": "str",
        "kind": "str",
        "problem": "int",
        "label": "str",
        "criterion": "str",
        "criterion_kind": "str",
        "max_points": "int",
        "juror": "str",
        "submitted_points": "int",
        "revised_points": "int",
        "agreed_points": "int",
        "settled": "str",
        # The first row's cell is agreed: no reason, an empty cell.
        "reason": "NoneType",
        "scheme_version": "int",
    }
    readme = [row[0] for row in book["README"].iter_rows(values_only=True)]
    assert [f"{name} ({kind}): {meaning}" for name, kind, meaning in COLUMNS] == readme[-15:]


def test_every_way_a_cell_is_settled_is_explained_in_the_readme():
    meaning = {name: meaning for name, _, meaning in COLUMNS}["settled"]
    # A problem left blank has no juror and so no row.
    words = [value for value in SETTLED_VALUES if value != CellStatus.NO_ANSWER]
    assert [word for word in words if f"{word} (" not in meaning] == []


def test_within_tolerance_is_an_agreement_of_marks_that_differ():
    def outcome(status, lo, hi):
        return Outcome(status, D(lo), D(lo), D(hi), 2)

    assert [
        settled_how(outcome(CellStatus.AGREED, "2", "2")),
        settled_how(outcome(CellStatus.AGREED, "2", "2.5")),
        settled_how(outcome(CellStatus.CONSENSUS, "2", "2")),
        settled_how(outcome(CellStatus.CHAIR, "2", "4")),
        settled_how(outcome(CellStatus.APPEAL, "2", "4")),
        settled_how(outcome(CellStatus.OPEN, "2", "4")),
    ] == ["agreed", "within_tolerance", "consensus", "chair", "appeal", "open"]


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_no_text_in_the_export_runs_as_a_formula(graded, fmt):
    formula = '=HYPERLINK("http://evil.example/?x","Click")'
    scenario.resolve(graded)
    Paper.objects.filter(pk=graded["papers"]["Team Orca"].pk).update(identity=formula)
    Resolution.objects.filter(paper__contest=graded["contest"], kind="chair").update(
        reason="-1 for the missing rule"
    )
    content = jury_evaluations_export(jury_evaluations(graded["contest"], identities=True), fmt=fmt)
    if fmt == "csv":
        cells = [v for row in csv.reader(io.StringIO(content.decode("utf-8-sig"))) for v in row]
    else:
        book = openpyxl.load_workbook(io.BytesIO(content))
        sheet = book["Jury evaluations"]
        # Text ("s" is also an empty cell's) and numbers only: "f" would be a formula.
        assert {c.data_type for row in sheet.iter_rows() for c in row} == {"inlineStr", "s", "n"}
        cells = [str(v) for row in sheet.iter_rows(values_only=True) for v in row]
    assert {v for v in cells if v.startswith(("'=", "'-"))} == {
        f"'{formula}",
        "'-1 for the missing rule",
    }
    assert [v for v in cells if v.startswith(("=", "+", "@"))] == []


# --- Who may download it, and what it names ----------------------------------------------------


def _get(client, user, fmt="csv"):
    if user is not None:
        client.force_login(user)
    return client.get(reverse("jury_evaluations_export", args=["iol", fmt]))


def test_the_chair_and_the_organizer_download_it_and_no_one_else(client, graded, organizer):
    users = graded["users"]
    lena = make_user("lena")
    make_delegation(graded["contest"], "XX", leaders=[lena])
    # Alice grades P1 and leads a delegation too: as a juror or a leader, no export.
    make_delegation(graded["contest"], "YY", leaders=[users["alice"]])
    statuses = {}
    for name, user in [
        ("chair", graded["chair"]),
        ("organizer", organizer),
        ("juror", users["bob"]),
        ("leader", lena),
        ("juror and leader", users["alice"]),
    ]:
        client.logout()
        statuses[name] = _get(client, user).status_code
    assert statuses == {
        "chair": 200,
        "organizer": 200,
        "juror": 404,
        "leader": 404,
        "juror and leader": 404,
    }
    client.logout()
    response = _get(client, None)
    assert (response.status_code, response["Location"].split("?")[0]) == (
        302,
        reverse("login"),
    )


@pytest.mark.parametrize(
    ("fmt", "content_type"),
    [("csv", "text/csv; charset=utf-8"), ("zip", "application/zip")],
)
def test_the_download_is_named_after_the_contest(client, graded, fmt, content_type):
    response = _get(client, graded["chair"], fmt)
    assert (response["Content-Type"], response["Content-Disposition"]) == (
        content_type,
        f'attachment; filename="iol-jury-evaluations.{fmt}"',
    )
    assert len(_frame(response.content, fmt)) == 30


def _xlsx_job(client, user, django_capture_on_commit_callbacks) -> Job:
    """The XLSX asked for from the results page, as its button posts, and run as the task
    worker runs it."""
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("job_start", args=["iol"]), {"kind": "jury_evaluations"})
    job = Job.objects.get(kind=Job.Kind.JURY_EVALUATIONS, requested_by=user)
    assert (response.status_code, response["Location"]) == (
        302,
        reverse("job", args=["iol", job.pk]),
    )
    jobs.job_run(job_id=job.pk, worker_id="w1")
    job.refresh_from_db()
    return job


@pytest.mark.parametrize("who", ["chair", "organizer"])
def test_the_xlsx_is_made_as_a_job_with_the_csvs_rows(
    client, graded, organizer, who, django_capture_on_commit_callbacks
):
    scenario.resolve(graded)
    user = graded["chair"] if who == "chair" else organizer
    job = _xlsx_job(client, user, django_capture_on_commit_callbacks)
    assert (job.state, job.done, job.total, job.error, job.names_identities) == (
        Job.State.DONE,
        30,
        30,
        "",
        False,
    )
    page = client.get(reverse("job", args=["iol", job.pk])).content.decode()
    assert "Download the jury evaluations (XLSX)" in page
    response = client.get(reverse("job_download", args=["iol", job.pk]))
    assert response["Content-Disposition"] == 'attachment; filename="iol-jury-evaluations.xlsx"'
    book = _frame(b"".join(response.streaming_content), "xlsx")
    csv_file = _frame(_get(client, user, "csv").content, "csv")
    # The same values; pandas reads whole points from an XLSX as integers, from a CSV as floats.
    pd.testing.assert_frame_equal(book, csv_file, check_dtype=False)


def test_the_xlsx_job_names_the_systems_only_once_final_and_only_while_final(
    client, graded, organizer, django_capture_on_commit_callbacks
):
    scenario.finalize(graded)
    job = _xlsx_job(client, graded["chair"], django_capture_on_commit_callbacks)
    response = client.get(reverse("job_download", args=["iol", job.pk]))
    frame = _frame(b"".join(response.streaming_content), "xlsx")
    assert (job.names_identities, "identity" in frame.columns) == (True, True)
    # Reopened: the named file is the organizer's again, as the results export's.
    Contest.objects.filter(pk=graded["contest"].pk).update(state=Contest.State.RESOLUTION)
    chair = client.get(reverse("job_download", args=["iol", job.pk]))
    client.force_login(organizer)
    assert (chair.status_code, _file_status(client, job)) == (403, 200)


def _file_status(client, job) -> int:
    return client.get(reverse("job_download", args=["iol", job.pk])).status_code


def test_jurors_and_leaders_cannot_start_the_xlsx_job(client, graded):
    lena = make_user("lena")
    make_delegation(graded["contest"], "XX", leaders=[lena])
    for user in (graded["users"]["bob"], lena):
        client.force_login(user)
        response = client.post(reverse("job_start", args=["iol"]), {"kind": "jury_evaluations"})
        assert response.status_code == 404
    assert not Job.objects.filter(kind=Job.Kind.JURY_EVALUATIONS).exists()


def test_the_xlsx_address_says_where_it_is_made(client, graded):
    response = _get(client, graded["chair"], "xlsx")
    assert response.status_code == 404
    assert not Job.objects.exists()


def test_an_unknown_format_is_a_404(client, graded):
    assert _get(client, graded["chair"], "pdf").status_code == 404


def test_the_zip_holds_the_csv_and_a_readme_of_its_columns(client, graded):
    response = _get(client, graded["chair"], "zip")
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert archive.namelist() == ["iol-jury-evaluations.csv", "README.txt"]
        readme = archive.read("README.txt").decode()
    assert [name for name, _, _ in COLUMNS if f"\n{name} (" not in readme] == [
        "identity",
        "kind",
    ]
    assert "does not name the systems" in readme


def test_the_results_page_links_the_export_for_the_chair_and_the_organizer(
    client, graded, organizer
):
    for user in (graded["chair"], organizer):
        client.force_login(user)
        page = client.get(reverse("results", args=["iol"]))
        for fmt in ("zip", "csv"):
            assertContains(page, f'href="{reverse("jury_evaluations_export", args=["iol", fmt])}"')
        assertContains(page, 'name="kind" value="jury_evaluations"')


def _names_anyone(content: bytes, graded) -> bool:
    text = content.decode("utf-8-sig")
    return any(identity in text for identity in graded["papers"])


@pytest.mark.parametrize("who", ["chair", "organizer"])
def test_before_finalization_no_export_names_a_system(client, graded, organizer, who):
    scenario.resolve(graded)
    user = graded["chair"] if who == "chair" else organizer
    response = _get(client, user, "csv")
    frame = _frame(response.content, "csv")
    assert (list(frame.columns), _names_anyone(response.content, graded)) == (
        ANONYMOUS_COLUMNS,
        False,
    )


@pytest.mark.parametrize("who", ["chair", "organizer"])
def test_once_final_the_chair_and_the_organizer_get_the_identities(client, graded, organizer, who):
    scenario.finalize(graded)
    user = graded["chair"] if who == "chair" else organizer
    frame = _frame(_get(client, user, "csv").content, "csv")
    codes = _codes(graded)
    assert sorted(set(zip(frame.paper, frame.identity, frame.kind, strict=True))) == sorted(
        (code, identity, "AI system") for identity, code in codes.items()
    )


# --- The command -------------------------------------------------------------------------------


def test_the_command_writes_each_format(graded, tmp_path):
    scenario.resolve(graded)
    out = io.StringIO()
    for fmt in ("csv", "xlsx", "zip"):
        path = tmp_path / f"evaluations.{fmt}"
        call_command(
            "export_jury_evaluations",
            "--contest=iol",
            f"--format={fmt}",
            f"--out={path}",
            stdout=out,
        )
        assert len(_frame(path.read_bytes(), fmt)) == 30
    assert out.getvalue().splitlines()[-1] == (
        f"Wrote 30 jury evaluations of Contest iol to {tmp_path / 'evaluations.zip'}."
    )


def test_the_command_names_the_systems_only_once_the_contest_is_final(graded, tmp_path):
    path = tmp_path / "evaluations.csv"
    args = ["export_jury_evaluations", "--contest=iol", "--format=csv", f"--out={path}"]
    with pytest.raises(CommandError) as refused:
        call_command(*args, "--identities")
    assert str(refused.value) == (
        "Contest iol is not final: identities stay hidden until the chair finalizes it."
    )
    scenario.finalize(graded)
    call_command(*args, "--identities", stdout=io.StringIO())
    assert sorted(set(pd.read_csv(path).identity)) == sorted(graded["papers"])


def test_the_command_refuses_an_unknown_contest(db, tmp_path):
    with pytest.raises(CommandError) as refused:
        call_command(
            "export_jury_evaluations",
            "--contest=nope",
            "--format=csv",
            f"--out={tmp_path / 'x.csv'}",
        )
    assert str(refused.value) == "There is no contest “nope”."


# --- Query count -------------------------------------------------------------------------------


def _graded_contest(slug: str, papers: int, jurors) -> None:
    """Every mark 2 and every sheet submitted, a quarter of the marks revised afterwards."""
    contest = make_contest(slug, papers=papers)
    assign(contest, jurors)
    Mark.objects.filter(sheet__problem__contest=contest).update(points=D("2"))
    Sheet.objects.filter(problem__contest=contest).update(state=Sheet.State.SUBMITTED)


def _download_queries(client, slug: str, fmt: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("jury_evaluations_export", args=[slug, fmt]))
    assert response.status_code == 200
    return len(queries)


# Built beside the module's contest (which may be there already): its people have names of
# their own.
@pytest.mark.parametrize("fmt", ["csv", "zip"])
def test_the_download_runs_as_many_queries_for_250_papers_as_for_5(client, db, fmt):
    jurors = [make_user("ada", roles.JUROR), make_user("ben", roles.JUROR)]
    _graded_contest("small", 5, jurors)
    _graded_contest("large", 250, jurors)
    client.force_login(make_user("cleo", roles.CHAIR))
    client.get(reverse("home"))
    small, large = _download_queries(client, "small", fmt), _download_queries(client, "large", fmt)
    assert (small, large) == (small, small)
    assert small <= 20
