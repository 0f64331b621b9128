"""Printing words its counts in the singular for one and the plural otherwise: a bundle's title,
render_papers' summary (PDFs, problems, processes) and prune_pdf_cache's."""

import io
import os
import re
import time

import pytest
from django.core.management import call_command

from grading.models import Assignment, GradingGroup
from grading.printing import pdf
from grading.rules import roles
from rubrics.models import Contest, Problem
from tests import factories


@pytest.fixture(autouse=True)
def pdf_cache(settings, tmp_path):
    settings.CACHE_DIR = tmp_path / "cache"
    return settings.CACHE_DIR / "pdf"


@pytest.mark.parametrize(("count", "papers"), [(1, "1 paper"), (2, "2 papers")])
def test_a_bundles_title_counts_its_papers(count, papers):
    problem = Problem(contest=Contest(slug="iol", name="IOL 2026"), number=3)
    assert pdf.bundle_title(problem, count=count) == f"IOL 2026 · P3 · {papers}"


@pytest.fixture
def dora(contest):
    """A juror of problem 1 who was given only the first paper."""
    user = factories.make_user("dora", roles.JUROR)
    problem = contest.problems.get(number=1)
    GradingGroup.objects.get(problem=problem).jurors.add(user)
    Assignment.objects.create(
        paper=contest.papers.order_by("pk").first(), problem=problem, juror=user
    )
    return user


def _render_papers(out, **options) -> str:
    stdout = io.StringIO()
    call_command(
        "render_papers",
        contest="test",
        problem=1,
        juror="dora",
        out=str(out),
        stdout=stdout,
        **options,
    )
    return stdout.getvalue()


def test_render_papers_counts_one_pdf_one_problem_and_the_processes(dora, tmp_path):
    out = tmp_path / "out"
    assert _render_papers(out, dry_run=True) == (
        f"Would write 1 PDF to {out} for 1 problem; nothing was written.\n"
    )
    assert re.fullmatch(
        rf"Wrote 1 PDF to {re.escape(str(out))} for 1 problem: 1 rendered, 0 from the cache, "
        r"in \d+\.\d s on up to 1 process\.\n",
        _render_papers(out, jobs=1),
    )
    assert re.fullmatch(
        rf"Wrote 1 PDF to {re.escape(str(out))} for 1 problem: 0 rendered, 1 from the cache, "
        r"in \d+\.\d s on up to 2 processes\.\n",
        _render_papers(out, jobs=2),
    )


@pytest.mark.parametrize(
    ("count", "printouts"), [(1, "1 cached printout"), (2, "2 cached printouts")]
)
def test_prune_pdf_cache_counts_the_printouts(pdf_cache, count, printouts):
    forty_days_ago = time.time() - 40 * 86400
    for n in range(count):
        path = pdf_cache / "ab" / (f"ab{n}" + "0" * 61 + ".pdf")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
        os.utime(path, (forty_days_ago, forty_days_ago))
    out = io.StringIO()
    call_command("prune_pdf_cache", "--days", "30", stdout=out)
    assert out.getvalue() == (
        f"Deleted {printouts} (0.0 MB) unused for 30 days in {pdf.cache_dir()}.\n"
    )
