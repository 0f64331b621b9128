"""Calibration marks never count: with random live marks and random calibration rounds,
papers, references, calibration marks and seeds beside them, the results, the CSV and XLSX
exports, every problem's comparison and the analysis are exactly what they are without them."""

import io
from decimal import Decimal

import openpyxl
from hypothesis import given
from hypothesis import strategies as st

from grading.marking.sheets import sheet_submit
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    Mark,
    ReferenceMark,
    Seed,
    Sheet,
)
from grading.resolution.comparison import problem_comparison
from grading.resolution.contest_grading import contest_results
from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from grading.results.exports import results_export
from tests.fuzz import fuzz_settings, rolled_back

HALVES = st.integers(min_value=0, max_value=24).map(lambda n: Decimal(n) / 2)


def _xlsx_cells(data: bytes) -> list:
    book = openpyxl.load_workbook(io.BytesIO(data))
    return [[cell.value for cell in row] for sheet in book for row in sheet.iter_rows()]


def _outputs(contest) -> dict:
    results = contest_results(contest, identities=True, with_marks=True)
    return {
        "results": results,
        "exports": [
            results_export(results, long=long, identities=identities, fmt="csv")
            for long in (False, True)
            for identities in (False, True)
        ],
        "xlsx": [
            _xlsx_cells(results_export(results, long=long, identities=False, fmt="xlsx"))
            for long in (False, True)
        ],
        "comparisons": [
            problem_comparison(problem) for problem in contest.problems.order_by("number")
        ],
        "analysis": contest_analysis(analysis_data(contest), calibration=True),
    }


def _capped(points: Decimal, criterion) -> Decimal:
    return min(points, criterion.points)


def _live_marks(contest, data) -> None:
    for mark in Mark.objects.select_related("criterion").order_by("pk"):
        Mark.objects.filter(pk=mark.pk).update(points=_capped(data.draw(HALVES), mark.criterion))
    for sheet in Sheet.objects.order_by("pk"):
        if data.draw(st.booleans()):
            sheet_submit(sheet=sheet, actor=sheet.juror)


def _calibration(contest, data) -> int:
    written = 0
    for problem in contest.problems.order_by("number"):
        if not data.draw(st.booleans()):
            continue
        round_ = CalibrationRound.objects.create(
            problem=problem,
            state=data.draw(st.sampled_from(["open", "closed"])),
            seeded=data.draw(st.booleans()),
        )
        papers = list(contest.papers.order_by("pk"))
        picked = data.draw(st.lists(st.sampled_from(papers), min_size=1, max_size=3, unique=True))
        jurors = {sheet.juror for sheet in problem.sheets.select_related("juror")}
        for position, paper in enumerate(picked, start=1):
            # A paper graded in the round has calibration sheet marks; one kept out of it for
            # seeding has seeds and their marks, never both.
            kept = data.draw(st.booleans())
            calibration_paper = CalibrationPaper.objects.create(
                round=round_, paper=paper, label=f"K{position}", position=position, for_seeding=kept
            )
            for criterion in problem.criteria.all():
                ReferenceMark.objects.create(
                    calibration_paper=calibration_paper,
                    criterion=criterion,
                    points=_capped(data.draw(HALVES), criterion),
                )
            for juror in sorted(jurors, key=lambda user: user.pk):
                sheet, _ = CalibrationSheet.objects.get_or_create(
                    round=round_,
                    juror=juror,
                    defaults={"state": data.draw(st.sampled_from(["draft", "submitted"]))},
                )
                if kept:
                    where = {
                        "seed": Seed.objects.create(
                            calibration_paper=calibration_paper, juror=juror, label=f"S{position}x"
                        )
                    }
                else:
                    where = {"sheet": sheet}
                for criterion in problem.criteria.all():
                    points = _capped(data.draw(HALVES), criterion)
                    mark = CalibrationMark.objects.create(
                        calibration_paper=calibration_paper,
                        criterion=criterion,
                        points=points,
                        note="a calibration reading",
                        version=1,
                        **where,
                    )
                    CalibrationMarkEvent.objects.create(
                        mark=mark, actor=juror, new_points=points, version=1
                    )
                    written += 1
    return written


@fuzz_settings(max_examples=25)
@given(data=st.data())
def test_calibration_marks_never_reach_results_exports_comparison_or_analysis(contest, data):
    with rolled_back():
        _live_marks(contest, data)
        before = _outputs(contest)
        written = _calibration(contest, data)
        assert CalibrationMark.objects.count() == written
        assert _outputs(contest) == before
