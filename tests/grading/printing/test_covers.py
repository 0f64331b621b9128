"""Answer-sheet covers: what their QR codes say, read back from the printed PDF."""

import pypdfium2 as pdfium
import pytest
import zxingcpp
from django.core.exceptions import ValidationError

from grading.intake.scans.codes import code_problem, parse_cover_payload
from grading.printing.covers import covers_pdf
from tests import factories
from tests.grading.intake.scans import scanmaker


@pytest.fixture
def contest(db):
    return factories.make_contest("iol", problems=3, papers=0)


def test_every_contestant_gets_a_cover_per_problem_whose_qr_code_names_them(contest):
    data = covers_pdf(contest=contest, codes=["C101", "C102"])
    pages = scanmaker.rasterise(data)
    read = [[barcode.text for barcode in zxingcpp.read_barcodes(page)][0] for page in pages]
    assert read == [
        f"JURY1|iol|{number}|{code}" for code in ("C101", "C102") for number in (1, 2, 3)
    ]
    assert parse_cover_payload(read[0]) == ("iol", 1, "C101")
    # The same, printed small for a person.
    document = pdfium.PdfDocument(data)
    text = document[4].get_textpage().get_text_range()
    assert "JURY1|iol|2|C102" in text
    assert "Problem 2" in text


def test_covers_refuse_codes_that_may_be_names_or_come_twice(contest):
    with pytest.raises(ValidationError) as refused:
        covers_pdf(contest=contest, codes=["C101", "Ivanova", "C101", "C 7"])
    assert refused.value.messages == [
        "Code 2, “Ivanova”: it holds no digit, so it may be a name rather than a code.",
        "Code 3, “C101”, comes twice.",
        "Code 4, “C 7”: only letters, digits, “-” and “_” (at most 40) may make it up.",
    ]


@pytest.mark.parametrize(
    ("name", "allowed"),
    [
        ("C101", True),
        ("scan-017", True),
        ("GB-03_2", True),
        ("ivanova", False),
        ("ivanova2", False),
        ("Li", False),
        ("maria ivanova 3", False),
    ],
)
def test_the_codes_only_rule(name, allowed):
    assert (code_problem(name) == "") is allowed


def test_other_qr_codes_are_not_covers():
    assert parse_cover_payload("https://example.org/") is None
    assert parse_cover_payload("JURY1|iol|two|C101") is None
    assert parse_cover_payload("JURY1|iol|2") is None
