"""The analysis export: the analysis page's tables as CSV, a zip of CSVs and XLSX, with a README
of what each column means; the command, the page's download and who may have it; identities
and the jurors' calibration only for those who may see them; types a spreadsheet and pandas
read right; no formula; a fixed number of queries whatever the number of papers.

The hand-computed figures are test_analysis.py's contest (four AI papers, two problems)."""

import io
import math
import zipfile

import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from grading.console.contest_life import contest_finalize
from grading.rules import roles
from tests.crawl import refetched, shared_data
from tests.factories import make_user
from tests.grading import scenario
from tests.grading.results.test_analysis import IDENTITIES, _build_graded, _graded_contest

TABLES = ["papers", "correlations", "difficulty", "difficulty_correlation", "agreement"]


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield _build_graded()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _download(client, user, fmt: str, **query):
    client.force_login(user)
    return client.get(reverse("analysis_export", args=["iol", fmt]), query)


def _sheets(content: bytes) -> dict[str, pd.DataFrame]:
    return pd.read_excel(io.BytesIO(content), sheet_name=None)


def _zip_tables(content: bytes) -> dict[str, pd.DataFrame]:
    archive = zipfile.ZipFile(io.BytesIO(content))
    return {
        name.removeprefix("iol-analysis-").removesuffix(".csv"): pd.read_csv(
            io.BytesIO(archive.read(name)), encoding="utf-8-sig"
        )
        for name in archive.namelist()
    }


# --- What the tables hold ----------------------------------------------------------------------


def test_the_workbook_has_a_readme_then_a_sheet_per_table_of_the_page(client, graded):
    response = _download(client, graded["chair"], "xlsx")
    assert response["Content-Disposition"] == 'attachment; filename="iol-analysis.xlsx"'
    sheets = _sheets(response.content)
    assert list(sheets) == ["README", *TABLES, "calibration"]
    readme = sheets["README"]
    assert list(readme.columns) == ["table", "column", "kind", "meaning"]
    # Every column of every table is explained, once.
    for name in [*TABLES, "calibration"]:
        documented = list(readme.loc[readme["table"] == name, "column"].dropna())
        assert documented == list(sheets[name].columns), name


def test_the_papers_table_has_the_hand_computed_figures_by_public_code(client, graded):
    frame = _sheets(_download(client, graded["chair"], "xlsx").content)["papers"]
    codes = {name: paper.public_code for name, paper in graded["papers"].items()}
    assert list(frame.columns) == [
        "paper",
        "paper_number",
        "score",
        "p1_app_score_pct",
        "p1_jury_points",
        "p1_jury_pct",
        "p1_difference_pct",
        "p2_app_score_pct",
        "p2_jury_points",
        "p2_jury_pct",
        "p2_difference_pct",
        "app_score_pct",
        "jury_pct",
        "difference_pct",
        "medal",
        "provisional",
        "human_rank",
        "human_percentile",
    ]
    got = [
        (r.paper, r.paper_number, r.score, r.p1_app_score_pct, r.p1_jury_pct, r.difference_pct)
        for r in frame.itertuples()
    ]
    # As test_analysis.py computes them: Walrus 87.5 automatic against 90 from the jury, etc.
    assert got == [
        (codes["Team Walrus"], 1, 0.875, 100, 100, 2.5),
        (codes["Team Yak"], 2, 0.625, 50, 70, 17.5),
        (codes["Team Xerus"], 3, 0.75, 75, 80, -10),
        (codes["Team Zebu"], 4, 0.25, 25, 10, -10),
    ]
    assert list(frame["p2_jury_points"]) == [16, 18, 10, 4]


def test_the_correlations_table_has_each_problem_then_the_totals(client, graded):
    frame = _sheets(_download(client, graded["chair"], "xlsx").content)["correlations"]
    assert list(frame["problem"]) == ["P1", "P2", "total"]
    assert list(frame["problems"]) == ["P1", "P2", "P1 P2"]
    total = frame.iloc[2]
    assert total["n"] == 4
    assert total["spearman"] == pytest.approx(0.8, abs=1e-6)
    assert total["pearson"] == pytest.approx(2500 / math.sqrt(2187.5 * 3325), abs=1e-6)
    assert (total["app_score_min_pct"], total["app_score_max_pct"]) == (25, 87.5)
    assert (total["jury_min_pct"], total["jury_max_pct"], total["jury_range_pct"]) == (15, 90, 75)
    assert total["range_ratio"] == pytest.approx(62.5 / 75, abs=1e-6)
    assert (
        total["mean_difference_pct"],
        total["weaker_half_difference_pct"],
        total["stronger_half_difference_pct"],
    ) == (0, -10, 10)


def test_difficulty_agreement_and_calibration_tables_match_the_page(client, graded):
    sheets = _sheets(_download(client, graded["chair"], "xlsx").content)
    difficulty = sheets["difficulty"]
    assert [
        (r.problem, r.criterion, r.kind, r.ai_papers, r.ai_met, r.ai_share)
        for r in difficulty.itertuples()
    ] == [
        ("P1", "A1", "Assignment", 4, 2, 0.5),
        ("P1", "T1", "Theory", 4, 2, 0.5),
        ("P2", "A1", "Assignment", 4, 2, 0.5),
        ("P2", "T1", "Theory", 4, 0, 0),
    ]
    agreement = sheets["agreement"]
    assert [(r.by, r.group, r.cells, r.exact, r.exact_rate) for r in agreement.itertuples()] == [
        ("problem", "P1", 8, 7, 0.875),
        ("problem", "P2", 8, 7, 0.875),
        ("problem", "All problems", 16, 14, 0.875),
        ("kind", "Assignment", 8, 7, 0.875),
        ("kind", "Theory", 8, 7, 0.875),
    ]
    # Alpha per problem, none per kind (as the page).
    assert agreement["krippendorff_alpha"].isna().tolist() == [False] * 3 + [True] * 2
    calibration = sheets["calibration"]
    assert [tuple(row) for row in calibration.itertuples(index=False)] == [
        ("Alice Ames", 16, 0, 0),
        ("Bob Baird", 16, 0.0625, 0.1875),
    ]


def test_the_zip_has_every_tables_csv_and_a_readme_with_the_workbooks_content(client, graded):
    response = _download(client, graded["chair"], "zip")
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="iol-analysis.zip"'
    tables = _zip_tables(response.content)
    assert list(tables) == ["README", *TABLES, "calibration"]
    sheets = _sheets(_download(client, graded["chair"], "xlsx").content)
    for name in ["README", *TABLES, "calibration"]:
        # Blank cells are NaN either way; 1 and 1.0 are the same number.
        pd.testing.assert_frame_equal(tables[name], sheets[name], check_dtype=False)


def test_one_csv_is_one_table_chosen_by_its_name(client, graded):
    response = _download(client, graded["chair"], "csv", table="correlations")
    assert response["Content-Disposition"] == (
        'attachment; filename="iol-analysis-correlations.csv"'
    )
    assert response.content[:3] == b"\xef\xbb\xbf"
    frame = pd.read_csv(io.BytesIO(response.content), encoding="utf-8-sig")
    assert list(frame["problem"]) == ["P1", "P2", "total"]
    default = _download(client, graded["chair"], "csv")
    assert default["Content-Disposition"] == 'attachment; filename="iol-analysis-papers.csv"'
    assert _download(client, graded["chair"], "csv", table="marks").status_code == 404
    assert _download(client, graded["chair"], "pdf").status_code == 404


def test_numbers_are_numbers_and_codes_text_in_the_workbook(client, graded):
    workbook = load_workbook(io.BytesIO(_download(client, graded["chair"], "xlsx").content))
    numbers = {"n", "cells", "exact", "points", "score", "spearman", "pearson", "paper_number"}
    for sheet in workbook.worksheets[1:]:
        header = [cell.value for cell in sheet[1]]
        for row in sheet.iter_rows(min_row=2):
            for name, cell in zip(header, row, strict=True):
                assert cell.data_type != "f", (sheet.title, cell.coordinate)
                if name in {"paper", "problem", "criterion", "group", "medal"}:
                    assert cell.value is None or cell.data_type == "s", (name, cell.value)
                if name in numbers or name.endswith(("_pct", "_points", "_share", "_rate")):
                    assert cell.value is None or cell.data_type == "n", (name, cell.value)


# --- Who may have it ---------------------------------------------------------------------------


def test_the_chair_and_the_organizer_download_it_jurors_get_404_and_visitors_log_in(
    client, graded, organizer
):
    url = reverse("analysis_export", args=["iol", "xlsx"])
    anonymous = client.get(url)
    statuses = []
    for user in (graded["chair"], organizer, graded["alice"]):
        client.force_login(user)
        statuses.append(client.get(url).status_code)
    assert statuses == [200, 200, 404]
    assert (anonymous.status_code, anonymous["Location"]) == (
        302,
        f"{reverse('login')}?next={url}",
    )


def test_systems_are_named_only_once_final_even_for_the_organizer(client, graded, organizer):
    before = _sheets(_download(client, organizer, "xlsx").content)["papers"]
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    after = _sheets(_download(client, graded["chair"], "xlsx").content)["papers"]
    assert "identity" not in before.columns
    assert list(after["identity"]) == ["Team Walrus", "Team Yak", "Team Xerus", "Team Zebu"]
    assert list(after["paper"]) == list(before["paper"])


def test_only_the_chair_gets_the_jurors_calibration(client, graded, organizer):
    sheets = _sheets(_download(client, organizer, "xlsx").content)
    assert "calibration" not in sheets
    assert "Bob Baird" not in str(sheets)
    assert _download(client, organizer, "csv", table="calibration").status_code == 404


def test_the_analysis_page_offers_the_downloads(client, graded):
    client.force_login(graded["chair"])
    html = client.get(reverse("analysis", args=["iol"])).content.decode()
    for fmt in ("xlsx", "zip"):
        assert html.count(f'href="{reverse("analysis_export", args=["iol", fmt])}"') == 1


# --- The command -------------------------------------------------------------------------------


def test_export_analysis_writes_the_workbook_the_page_downloads(client, graded, tmp_path):
    out = tmp_path / "analysis.xlsx"
    call_command("export_analysis", contest="iol", format="xlsx", out=str(out), calibration=True)
    command = _sheets(out.read_bytes())
    page = _sheets(_download(client, graded["chair"], "xlsx").content)
    assert list(command) == list(page)
    for name in page:
        pd.testing.assert_frame_equal(command[name], page[name])


def test_export_analysis_writes_one_table_or_a_zip(graded, tmp_path):
    call_command(
        "export_analysis",
        contest="iol",
        format="csv",
        table="agreement",
        out=str(tmp_path / "agreement.csv"),
        verbosity=0,
    )
    frame = pd.read_csv(tmp_path / "agreement.csv", encoding="utf-8-sig")
    assert list(frame["group"]) == ["P1", "P2", "All problems", "Assignment", "Theory"]
    call_command(
        "export_analysis", contest="iol", format="zip", out=str(tmp_path / "a.zip"), verbosity=0
    )
    assert list(_zip_tables((tmp_path / "a.zip").read_bytes())) == ["README", *TABLES]


def test_export_analysis_names_systems_only_for_a_final_contest(graded, tmp_path):
    out = tmp_path / "analysis.xlsx"
    with pytest.raises(CommandError, match="not final: identities stay hidden"):
        call_command("export_analysis", contest="iol", format="xlsx", out=str(out), identities=True)
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    call_command(
        "export_analysis", contest="iol", format="xlsx", out=str(out), identities=True, verbosity=0
    )
    assert sorted(_sheets(out.read_bytes())["papers"]["identity"]) == sorted(IDENTITIES)


def test_export_analysis_refuses_what_it_cannot_do_in_sentences(graded, tmp_path):
    with pytest.raises(CommandError, match="There is no contest “nope”."):
        call_command("export_analysis", contest="nope", format="xlsx", out=str(tmp_path / "a"))
    with pytest.raises(CommandError, match="names jurors: add --calibration"):
        call_command(
            "export_analysis",
            contest="iol",
            format="csv",
            table="calibration",
            out=str(tmp_path / "c.csv"),
        )
    with pytest.raises(CommandError, match="does not exist"):
        call_command(
            "export_analysis", contest="iol", format="xlsx", out=str(tmp_path / "no" / "a.xlsx")
        )


def test_export_analysis_says_what_it_wrote(graded, tmp_path):
    out = io.StringIO()
    call_command(
        "export_analysis", contest="iol", format="xlsx", out=str(tmp_path / "a.xlsx"), stdout=out
    )
    assert out.getvalue().strip() == (
        f"Wrote the analysis of {graded['contest'].name} to {tmp_path / 'a.xlsx'}: 4 AI papers; "
        "tables papers, correlations, difficulty, difficulty_correlation, agreement."
    )


# --- Queries -----------------------------------------------------------------------------------


def _export_queries(client, slug: str, fmt: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("analysis_export", args=[slug, fmt]))
    assert response.status_code == 200
    return len(queries)


@pytest.mark.parametrize("fmt", ["xlsx", "zip"])
def test_the_analysis_export_runs_as_many_queries_for_300_papers_as_for_5(client, db, fmt):
    jurors = [make_user("ada", roles.JUROR), make_user("ben", roles.JUROR)]
    _graded_contest("small", 5, jurors)
    _graded_contest("large", 300, jurors)
    client.force_login(make_user("cleo", roles.CHAIR))
    client.get(reverse("home"))
    small = _export_queries(client, "small", fmt)
    large = _export_queries(client, "large", fmt)
    assert (small, large) == (small, small)
    # The page's reads, without its header's inbox count.
    assert small <= 25


# --- No formula --------------------------------------------------------------------------------


def test_text_that_starts_like_a_formula_leaves_as_text_in_every_format(client, graded):
    hostile = '=HYPERLINK("http://evil.example/","Click")'
    graded["problems"][1].criteria.filter(code="A1").update(title=hostile)
    graded["contest"].papers.filter(identity="Team Walrus").update(identity="@SUM(A1)")
    contest_finalize(contest=graded["contest"], actor=graded["chair"])
    workbook = load_workbook(io.BytesIO(_download(client, graded["chair"], "xlsx").content))
    values = [
        cell.value
        for sheet in workbook.worksheets
        for row in sheet.iter_rows()
        for cell in row
        if cell.data_type != "n"
    ]
    assert [v for v in values if isinstance(v, str) and v.startswith(("=", "+", "@"))] == []
    assert {f"'{hostile}", "'@SUM(A1)"} <= set(values)
    tables = _zip_tables(_download(client, graded["chair"], "zip").content)
    assert tables["difficulty"]["title"][0] == f"'{hostile}"
    assert tables["papers"]["identity"][0] == "'@SUM(A1)"
    # Negative differences stay numbers.
    assert tables["papers"]["difference_pct"].min() == -10
