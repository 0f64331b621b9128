"""The competition paper's jury-versus-automatic table (its "Table 5": each AI system's jury total
and medal against the automatic score, the signed differences per problem, Spearman and Pearson)
rebuilt from the exports alone, read back with pandas, on the demo contest made through the
documented commands (`load_demo`, `load_demo --finish-grading`), with scipy computing the
statistics on its own; what it finds is what the app's analysis shows."""

import io
import zipfile
from io import StringIO

import pandas as pd
import pytest
from django.core.management import call_command
from django.urls import reverse
from pytest_django.asserts import assertInHTML
from scipy import stats

from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from grading.rules import roles
from rubrics.models import Contest
from tests.crawl import database_state, shared_data
from tests.factories import make_user
from tests.grading import scenario

# The exports' floats have six decimals; the statistics agree to well within that.
CLOSE = 1e-5


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = scenario.FAST_HASHERS


@pytest.fixture(scope="module")
def demo_exports(django_db_setup, django_db_blocker, pdf_cache, tmp_path_factory):
    """The demo, finished, exported once for the module by the documented commands."""
    folder = tmp_path_factory.mktemp("exports")
    with shared_data(django_db_blocker, pdf_cache):
        call_command("load_demo", stdout=StringIO())
        call_command("load_demo", "--finish-grading", stdout=StringIO())
        call_command(
            "export_results", contest="demo", format="csv", out=str(folder / "results.csv")
        )
        call_command(
            "export_analysis", contest="demo", format="zip", out=str(folder / "analysis.zip")
        )
        yield folder, database_state()


@pytest.fixture
def exports(db, demo_exports):
    folder, state = demo_exports
    assert database_state() == state
    wide = pd.read_csv(folder / "results.csv", encoding="utf-8-sig", dtype={"paper": str})
    archive = zipfile.ZipFile(folder / "analysis.zip")
    analysis = {
        name.removeprefix("demo-analysis-").removesuffix(".csv"): pd.read_csv(
            io.BytesIO(archive.read(name)), encoding="utf-8-sig"
        )
        for name in archive.namelist()
    }
    return wide, analysis


def _table5(wide: pd.DataFrame, analysis: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per AI system from the files alone: the AI papers are those with an automatic
    score; each problem's maximum is the sum of its criteria's points (the difficulty table)."""
    maxima = analysis["difficulty"].groupby("problem")["points"].sum()
    problems = list(maxima.index)
    ai = wide[wide["score"].notna()].set_index("paper")
    per_problem = analysis["papers"].set_index("paper")
    table = pd.DataFrame(index=ai.index)
    table["jury"] = ai["total"] / ai["max total"] * 100
    table["medal"] = ai["medal"].fillna("")
    table["automatic"] = ai["score"] * 100
    table["difference"] = table["jury"] - table["automatic"]
    for problem in problems:
        jury = ai[problem] / maxima[problem] * 100
        auto = per_problem.loc[ai.index, f"{problem.lower()}_app_score_pct"]
        table[f"{problem} jury"] = jury
        table[f"{problem} automatic"] = auto
        table[f"{problem} difference"] = jury - auto
    return table.sort_values("jury", ascending=False)


def test_the_ai_papers_of_the_wide_export_are_the_analysis_exports(exports):
    wide, analysis = exports
    # Six AI systems and four human contestants: only the systems have an automatic score.
    assert (len(wide), int(wide["score"].notna().sum())) == (10, 6)
    assert sorted(wide.loc[wide["score"].notna(), "paper"]) == sorted(analysis["papers"]["paper"])
    assert list(analysis["correlations"]["problems"])[-1] == "P1 P2 P3 P4 P5"


def test_table5_rebuilt_from_the_exports_matches_the_analysis_export(exports):
    wide, analysis = exports
    table = _table5(wide, analysis)
    papers = analysis["papers"].set_index("paper").loc[table.index]
    assert list(table["medal"]) == list(papers["medal"].fillna(""))
    assert list(table["jury"]) == pytest.approx(list(papers["jury_pct"]), abs=CLOSE)
    assert list(table["automatic"]) == pytest.approx(list(papers["app_score_pct"]), abs=CLOSE)
    assert list(table["difference"]) == pytest.approx(list(papers["difference_pct"]), abs=CLOSE)
    for number in range(1, 6):
        rebuilt = list(table[f"P{number} difference"])
        exported = list(papers[f"p{number}_difference_pct"])
        assert rebuilt == pytest.approx(exported, abs=CLOSE), number
    # The demo's systems, best jury total first: Aurora 87.50 (gold) … Fjord 9.67.
    assert list(table["jury"].round(2)) == [87.5, 82.33, 69.25, 50.0, 31.5, 9.67]
    assert list(table["medal"]) == ["gold", "gold", "silver", "honourable mention", "", ""]


def test_scipy_on_the_exports_gives_the_figures_the_app_shows(exports, client):
    wide, analysis = exports
    table = _table5(wide, analysis)
    correlations = analysis["correlations"].set_index("problem")
    contest = Contest.objects.get(slug="demo")
    app = contest_analysis(analysis_data(contest))
    rows = [("total", "automatic", "jury", app.totals)] + [
        (f"P{n}", f"P{n} automatic", f"P{n} jury", item.correlation)
        for n, item in enumerate(app.by_problem, start=1)
    ]
    for name, auto_column, jury_column, shown in rows:
        auto, jury = table[auto_column], table[jury_column]
        rho = stats.spearmanr(auto, jury).statistic
        r = stats.pearsonr(auto, jury).statistic
        exported = correlations.loc[name]
        assert (exported["spearman"], exported["pearson"]) == (
            pytest.approx(rho, abs=CLOSE),
            pytest.approx(r, abs=CLOSE),
        ), name
        assert (shown.spearman, shown.pearson) == (
            pytest.approx(rho, abs=CLOSE),
            pytest.approx(r, abs=CLOSE),
        ), name
        assert exported["mean_difference_pct"] == pytest.approx((jury - auto).mean(), abs=CLOSE)
        assert (exported["app_score_min_pct"], exported["jury_max_pct"]) == (
            pytest.approx(auto.min(), abs=CLOSE),
            pytest.approx(jury.max(), abs=CLOSE),
        )
    # And the page says so, to its two decimals.
    client.force_login(make_user("table5chair", roles.CHAIR))
    html = client.get(reverse("analysis", args=["demo"])).content.decode()
    totals = table[["automatic", "jury"]]
    rho = stats.spearmanr(totals["automatic"], totals["jury"]).statistic
    r = stats.pearsonr(totals["automatic"], totals["jury"]).statistic
    assertInHTML(f'<dd id="spearman">{rho:.2f}</dd>', html)
    assertInHTML(f'<dd id="pearson">{r:.2f}</dd>', html)
