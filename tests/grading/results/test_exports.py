import io
from decimal import Decimal

import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from grading.intake.importers.human_scores import human_scores_import
from grading.metrics.autoscore import contest_autoscore
from grading.models import Solution
from grading.resolution.comparison import contest_results
from grading.results.exports import results_export
from grading.rules import roles
from tests.crawl import refetched, shared_data
from tests.factories import make_user
from tests.grading import scenario

D = Decimal


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture(scope="module")
def graded_once(django_db_setup, django_db_blocker, pdf_cache):
    """Built once for the module; each test runs in a savepoint of it (tests/crawl.py)."""
    with shared_data(django_db_blocker, pdf_cache):
        yield scenario.build()


@pytest.fixture
def graded(graded_once, db):
    return refetched(graded_once)


def _resolve_and_finalize(graded):
    human_scores_import(contest=graded["contest"], text=scenario.HUMANS_CSV)
    scenario.finalize(graded)


def _read(content: bytes, fmt: str) -> pd.DataFrame:
    if fmt == "csv":
        return pd.read_csv(io.BytesIO(content), keep_default_na=False)
    return pd.read_excel(io.BytesIO(content), keep_default_na=False)


WIDE = [
    # identity, P1, P2, total, medal, rank, percentile
    ("Team Orca", 19.0, 16.0, 87.5, "gold", 2, 75.0),
    ("Team Heron", 12.0, 8.0, 50.0, "honourable mention", 3, 25.0),
    ("Team Lynx", 6.0, 3.0, 22.5, "", 4, 25.0),
]


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_final_wide_export_reads_back_with_the_same_numbers(graded, fmt):
    _resolve_and_finalize(graded)
    results = contest_results(graded["contest"], identities=True)
    frame = _read(results_export(results, long=False, identities=True, fmt=fmt), fmt)
    assert list(frame.columns) == [
        "paper",
        "identity",
        "kind",
        "P1 label",
        "P2 label",
        "P1",
        "P2",
        "total",
        "score",
        "max total",
        "medal",
        "rank",
        "percentile",
        "provisional",
        "straddles cut-off",
        "no answer",
    ]
    rows = [
        (
            r.identity,
            float(r.P1),
            float(r.P2),
            float(r.total),
            r.medal,
            int(r.rank),
            float(r.percentile),
        )
        for r in frame.itertuples()
    ]
    assert rows == WIDE
    assert list(frame["provisional"]) == ["no", "no", "no"]
    assert list(frame["max total"].astype(float)) == [100.0] * 3
    labels = [scenario.label(graded, name, 1) for name, *_ in WIDE]
    assert list(frame["P1 label"]) == labels


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_long_export_has_each_jurors_mark_the_agreed_value_and_how(graded, fmt):
    _resolve_and_finalize(graded)
    results = contest_results(graded["contest"], identities=True, with_marks=True)
    frame = _read(results_export(results, long=True, identities=True, fmt=fmt), fmt)
    assert list(frame.columns) == [
        "paper",
        "identity",
        "kind",
        "problem",
        "label",
        "criterion",
        "max points",
        "juror 1",
        "mark 1",
        "juror 2",
        "mark 2",
        "juror 3",
        "mark 3",
        "agreed",
        "how",
        "reason",
    ]
    assert len(frame) == 3 * 4
    orca = frame[frame.identity == "Team Orca"]
    got = [
        (
            int(r.problem),
            r.criterion,
            r[8],
            _num(r[9]),
            r[10],
            _num(r[11]),
            r[12],
            _num(r[13]),
            float(r.agreed),
            r.how,
            r.reason,
        )
        for r in orca.itertuples()
    ]
    assert got == [
        (1, "A1", "alice", 12.0, "bob", 12.0, "dan", 12.0, 12.0, "agreed", ""),
        (
            1,
            "T1",
            "alice",
            8.0,
            "bob",
            8.0,
            "dan",
            6.0,
            7.0,
            "decided by the chair",
            "Rule 2 stated, not applied.",
        ),
        (2, "A1", "charlie", 10.0, "erin", 10.0, "", None, 10.0, "agreed", ""),
        (2, "T1", "charlie", 6.0, "erin", 6.0, "", None, 6.0, "agreed", ""),
    ]
    heron = frame[
        (frame.identity == "Team Heron")
        & (frame.problem.astype(int) == 1)
        & (frame.criterion == "A1")
    ]
    assert [
        (_num(r[9]), _num(r[11]), _num(r[13]), float(r.agreed), r.how) for r in heron.itertuples()
    ] == [(8.0, 8.0, 8.0, 8.0, "agreed in discussion")]
    heron_p2_t1 = frame[
        (frame.identity == "Team Heron")
        & (frame.problem.astype(int) == 2)
        & (frame.criterion == "T1")
    ]
    assert [(_num(r[9]), _num(r[11]), float(r.agreed)) for r in heron_p2_t1.itertuples()] == [
        (2.0, 2.5, 2.0)
    ]


def _num(value):
    return None if value == "" else float(value)


def test_a_provisional_export_has_no_identities_and_says_provisional(graded, tmp_path):
    out = tmp_path / "wide.csv"
    call_command("export_results", contest="iol", format="csv", out=str(out), verbosity=0)
    frame = pd.read_csv(out, keep_default_na=False)
    assert "identity" not in frame.columns
    assert list(frame["provisional"]) == ["yes", "yes", "no"]
    assert list(frame["total"].astype(float)) == [88.33, 50.83, 22.5]
    with pytest.raises(CommandError) as error:
        call_command(
            "export_results",
            contest="iol",
            format="csv",
            out=str(out),
            identities=True,
            verbosity=0,
        )
    assert str(error.value) == (
        "Contest iol is not final: identities stay hidden until the chair finalizes it."
    )


def test_export_results_command_writes_the_final_long_xlsx_with_identities(graded, tmp_path):
    _resolve_and_finalize(graded)
    out = tmp_path / "long.xlsx"
    call_command(
        "export_results",
        contest="iol",
        format="xlsx",
        out=str(out),
        long=True,
        identities=True,
        verbosity=0,
    )
    frame = pd.read_excel(out, keep_default_na=False)
    assert sorted(set(frame["identity"])) == ["Team Heron", "Team Lynx", "Team Orca"]
    assert float(frame["agreed"].astype(float).sum()) == 87.5 / 2.5 + 50 / 2.5 + 22.5 / 2.5


def test_browser_download_is_the_chairs_and_organizers_with_identities_only_after_final(
    graded, client
):
    organizer = make_user("olga", roles.ORGANIZER)
    url = reverse("results_export", args=["iol", "csv"])
    client.force_login(graded["users"]["alice"])
    assert client.get(url).status_code == 404
    client.force_login(organizer)
    before = client.get(url)
    assert before["Content-Disposition"] == 'attachment; filename="iol-results-wide.csv"'
    assert "identity" not in pd.read_csv(io.BytesIO(before.content)).columns
    _resolve_and_finalize(graded)
    for user in (organizer, graded["chair"]):
        client.force_login(user)
        frame = pd.read_csv(io.BytesIO(client.get(url).content))
        assert list(frame["identity"]) == ["Team Orca", "Team Heron", "Team Lynx"]
    long = client.get(reverse("results_export", args=["iol", "xlsx"]), {"table": "long"})
    assert long["Content-Disposition"] == 'attachment; filename="iol-results-long.xlsx"'
    assert len(pd.read_excel(io.BytesIO(long.content))) == 12


def test_a_csv_export_has_a_byte_order_mark_so_that_excel_reads_non_ascii_names(graded):
    Paper = graded["papers"]["Team Orca"].__class__
    Paper.objects.filter(pk=graded["papers"]["Team Orca"].pk).update(identity="Équipe Orque")
    _resolve_and_finalize(graded)
    results = contest_results(graded["contest"], identities=True)
    content = results_export(results, long=False, identities=True, fmt="csv")
    assert content[:3] == b"\xef\xbb\xbf"
    frame = _read(content, "csv")
    assert (frame.columns[0], sorted(frame["identity"])[0]) == ("paper", "Team Heron")
    assert content.decode("utf-8-sig").count("Équipe Orque") == 1


def test_the_human_scores_command_reads_a_file_with_a_byte_order_mark(graded, tmp_path):
    path = tmp_path / "humans.csv"
    path.write_text(scenario.HUMANS_CSV, encoding="utf-8-sig")
    call_command("import_human_scores", str(path), contest="iol", verbosity=0)
    assert sorted(graded["contest"].human_scores.values_list("contestant", flat=True)) == [
        "H1",
        "H2",
        "H3",
        "H4",
    ]


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_wide_export_has_each_ai_papers_automatic_score_beside_its_total(graded, tmp_path, fmt):
    # The competition's final score (its name, `score`, 0–1): before, a researcher joined
    # export_results with autoscore --csv by hand.
    Solution.objects.filter(paper=graded["papers"]["Team Lynx"]).update(answers=[])
    out = tmp_path / f"results.{fmt}"
    call_command("export_results", contest="iol", format=fmt, out=str(out), verbosity=0)
    frame = _read(out.read_bytes(), fmt)
    codes = dict(graded["contest"].papers.values_list("pk", "public_code"))
    expected = {
        codes[result.paper_id]: result.overall.score
        for result in contest_autoscore(contest=graded["contest"])
    }
    assert sorted(expected.values()) == [0.0, 1.0, 1.0]
    assert list(frame.columns[frame.columns.get_loc("total") :][:2]) == ["total", "score"]
    assert pd.api.types.is_numeric_dtype(frame["score"])
    assert dict(zip(frame["paper"], frame["score"], strict=True)) == expected
