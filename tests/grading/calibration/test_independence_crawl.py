"""Independence in the calibration round: a juror who has not submitted their calibration
sheet reaches, by every link and script URL from the home page, no reference mark and no other
juror's calibration mark; once submitted, the reference and the group's spread, never who gave
what. The round's paper kept for seeding (K3) is never reached, before or after: not its
calibration label, not its reference."""

from decimal import Decimal

import pytest

from grading.calibration import rounds
from grading.calibration.calibration_marks import calibration_mark_set, calibration_sheet_submit
from grading.models import CalibrationSheet, ReferenceMark
from tests.crawl import crawl, response_text, sheet_saves
from tests.grading.calibration.scenario import juror_marks, make_round

BOB_NOTE = "bobs-own-reading"


@pytest.fixture
def graded_by_bob(contest, chair, other_juror):
    round_ = make_round(contest.problems.get(number=1), chair, seeded=True, kept=1)
    # Reference notes the crawl can find, one per cell.
    for reference in ReferenceMark.objects.select_related("calibration_paper", "criterion"):
        rounds.reference_set(
            calibration_paper=reference.calibration_paper,
            criterion=reference.criterion,
            points=reference.points,
            note=f"refnote-{reference.calibration_paper.label}-{reference.criterion.code}",
            actor=chair,
        )
    for mark in juror_marks(round_, other_juror).values():
        calibration_mark_set(mark=mark, points=Decimal("0.5"), note=BOB_NOTE, actor=other_juror)
    calibration_sheet_submit(
        sheet=CalibrationSheet.objects.get(juror=other_juror), actor=other_juror
    )
    return round_


def _texts(client) -> dict[str, str]:
    pages = crawl(client)
    texts = {url: response_text(response) for url, response in pages.items()}
    texts |= {key: response_text(response) for key, response in sheet_saves(client, pages).items()}
    return texts


def _calibration(texts: dict[str, str]) -> dict[str, str]:
    return {url: text for url, text in texts.items() if "/calibration/" in url}


def test_before_submitting_the_juror_reaches_no_reference_and_no_colleagues_mark(
    client, graded_by_bob, juror
):
    client.force_login(juror)
    texts = _texts(client)
    calibration = _calibration(texts)
    # The crawl reached the calibration sheet, its papers' panels and its cells' history.
    assert any(url.endswith("/calibration/sheet/") for url in calibration)
    assert any("/sheet/solution/K2/" in url for url in calibration)
    assert any("/history/" in url for url in calibration)
    leaks = [url for url, text in texts.items() if "refnote-" in text or BOB_NOTE in text]
    assert leaks == []
    assert [url for url in calibration if "/K3/" in url] == []
    assert [url for url, text in calibration.items() if "calibration-comparison" in text] == []


def test_after_submitting_the_juror_sees_the_reference_and_the_spread_never_who(
    client, graded_by_bob, juror
):
    for mark in juror_marks(graded_by_bob, juror).values():
        calibration_mark_set(mark=mark, points=Decimal("1"), actor=juror)
    calibration_sheet_submit(sheet=CalibrationSheet.objects.get(juror=juror), actor=juror)
    client.force_login(juror)
    texts = _texts(client)
    calibration = _calibration(texts)
    sheet = next(text for url, text in calibration.items() if url.endswith("/calibration/sheet/"))
    assert all(
        f"refnote-{label}-{code}" in sheet for label in ("K1", "K2") for code in ("A1", "T1")
    )
    assert [url for url, text in texts.items() if "refnote-K3" in text] == []
    assert [url for url in calibration if "/K3/" in url] == []
    assert "2 marks from 0.5 to 1, median 0.75; none equals the reference" in sheet
    assert [url for url, text in calibration.items() if BOB_NOTE in text or "bob" in text] == []
