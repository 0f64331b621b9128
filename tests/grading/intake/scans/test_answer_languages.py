"""A scan import's page map may give each contestant's answer language in a fifth column,
`language`: the same on every row of one contestant, written with the paper in the import's
transaction; any problem is a sentence naming the row, and nothing is written."""

import pytest

from grading.intake.importers.errors import ImportProblems
from grading.intake.scans.importing import ScanFile, scans_import
from grading.intake.scans.reading import read_page_map
from grading.models import Paper, ScanPage
from tests import factories
from tests.grading.intake.scans import scanmaker

HEADER = b"file,problem,first_page,last_page,language\n"


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return settings.SCANS_DIR


@pytest.fixture
def contest(db):
    return factories.make_contest("iol", problems=2, papers=1)


def _files():
    one = [*scanmaker.answer_pages("C201", 1, 1), *scanmaker.answer_pages("C201", 2, 1)]
    two = [*scanmaker.answer_pages("C202", 1, 1), *scanmaker.answer_pages("C202", 2, 1)]
    return [
        ScanFile("C201.pdf", scanmaker.as_pdf(one)),
        ScanFile("C202.pdf", scanmaker.as_pdf(two)),
    ]


def test_the_page_maps_language_column_sets_each_contestants_answer_language(contest, scans_dir):
    page_map = ScanFile(
        "map.csv",
        HEADER
        + b"C201.pdf,1,1,1,Estonian\nC201.pdf,2,2,2, estonian \n"
        + b"C202.pdf,1,1,1,\nC202.pdf,2,2,2,Tagalog\n",
    )
    summary = scans_import(contest=contest, files=_files(), page_map=page_map, actor=None)
    assert summary.line() == (
        "Imported 4 scanned pages: 4 answers of 2 contestants (2 new papers). "
        "Answer languages of 2 contestants set."
    )
    assert dict(
        Paper.objects.filter(source="human").values_list("identity", "answer_language")
    ) == {"C201": "Estonian", "C202": "Tagalog"}


def test_a_dry_run_says_how_many_languages_it_would_set(contest, scans_dir):
    page_map = ScanFile(
        "map.csv",
        HEADER + b"C201.pdf,1,1,1,Estonian\nC201.pdf,2,2,2,\nC202.pdf,1,1,1,\nC202.pdf,2,2,2,\n",
    )
    summary = scans_import(
        contest=contest, files=_files(), page_map=page_map, actor=None, dry_run=True
    )
    assert summary.line().endswith("Answer languages of 1 contestant would be set.")
    assert not Paper.objects.filter(source="human").exists()


def test_one_contestants_rows_must_name_one_language_and_nothing_is_written(contest, scans_dir):
    page_map = ScanFile(
        "map.csv",
        HEADER
        + b"C201.pdf,1,1,1,Estonian\nC201.pdf,2,2,2,Finnish\n"
        + b"C202.pdf,1,1,1,Tagalog (Filipino)\nC202.pdf,2,2,2,"
        + b"x" * 61
        + b"\n",
    )
    with pytest.raises(ImportProblems) as refused:
        scans_import(contest=contest, files=_files(), page_map=page_map, actor=None)
    assert refused.value.messages == [
        "map.csv, row 3, column language: “Finnish” is not the language row 2 gives "
        "contestant C201 (“Estonian”); every row of one contestant names the same language.",
        "map.csv, row 4, column language: “Tagalog (Filipino)” is not one language's name; "
        "give one per paper.",
        f"map.csv, row 5, column language: “{'x' * 61}” is longer than 60 characters.",
    ]
    assert (Paper.objects.filter(source="human").count(), ScanPage.objects.count()) == (0, 0)


def test_a_page_map_without_the_language_column_reads_as_before():
    ranges, problems = read_page_map(
        "file,problem,first_page,last_page\nC201.pdf,1,1,2\n", name="map.csv"
    )
    assert (problems, [r.language for r in ranges]) == ([], [""])


def test_a_page_map_with_another_fifth_column_is_refused():
    assert read_page_map("file,problem,first_page,last_page,lang\n", name="map.csv") == (
        [],
        [
            "map.csv: the first row must be the header file,problem,first_page,last_page "
            "(or with a fifth column, language)."
        ],
    )
