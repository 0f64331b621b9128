"""Anonymity with human papers: a contest of AI and human papers, whose scanned pages are
served, shown in the sheet and printed. As each juror, everything reachable from the home page
(pages, script-fetched partials, page images, PDFs, XLSX, zips) is searched for every contestant
code and every stored image's file name: in URLs, headers (file names included), text, raw
bytes, image metadata (PNG text chunks, EXIF) and PDF metadata (pdfinfo)."""

import io
import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import resolve
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import Mark, Paper, ScanPage, Sheet
from grading.rules import roles
from tests.crawl import (
    crawl,
    database_state,
    file_text,
    raw_text,
    response_text,
    shared_data,
    sheet_saves,
)
from tests.factories import assign, make_contest, make_user
from tests.grading.scan_pages import add_human_papers

# Contestant codes as an olympiad writes them: what the juror must never see.
CODES = ["IOL26-QZ-4471", "IOL26-MU-9902", "IOL26-NK-1207"]


def secrets() -> set[str]:
    """Every human paper's code and every stored page's file name (random, and no business of
    a reader's: the URLs name the label and position only)."""
    names = set(ScanPage.objects.values_list("image", flat=True))
    return set(CODES) | names | {name.removesuffix(".png") for name in names}


def everything(url: str, response) -> str:
    return "\n".join((url, response_text(response), raw_text(response)))


def leaks(pages: dict, hidden: set[str]) -> dict[str, list[str]]:
    found = {}
    for url, response in pages.items():
        text = everything(url, response)
        shown = sorted(secret for secret in hidden if secret in text)
        if shown:
            found[url] = shown
    return found


def grade_all(juror, problem, points: str) -> None:
    for mark in Mark.objects.filter(sheet__juror=juror, sheet__problem=problem):
        mark_set(mark=mark, points=Decimal(points), actor=juror, channel="browser")


@pytest.fixture(scope="module")
def scanned(django_db_setup, django_db_blocker, tmp_path_factory, pdf_cache):
    """One AI paper and three human papers (two pages per problem); alice and bob grade
    problem 1 and have submitted, charlie grades problem 2 and has not."""
    scans = tmp_path_factory.mktemp("scans")
    with (
        shared_data(django_db_blocker, pdf_cache),
        override_settings(SCANS_DIR=scans),
    ):
        alice, bob, charlie = (make_user(name, roles.JUROR) for name in ("alice", "bob", "charlie"))
        contest = make_contest("humans", identities=["Team Orca"])
        add_human_papers(contest, CODES, pages=2)
        assign(contest, [alice, bob], problems=[1])
        assign(contest, [charlie], problems=[2])
        p1, p2 = contest.problems.order_by("number")
        grade_all(alice, p1, "6")
        grade_all(bob, p1, "5")
        for juror in (alice, bob):
            sheet_submit(sheet=Sheet.objects.get(juror=juror, problem=p1), actor=juror)
        grade_all(charlie, p2, "4")
        yield {
            "alice": alice,
            "bob": bob,
            "charlie": charlie,
            "state": database_state(),
            "scans": scans,
        }


@pytest.fixture(autouse=True)
def _each_test_starts_from_the_scanned_contest(db, scanned):
    with override_settings(SCANS_DIR=scanned["scans"]):
        assert database_state() == scanned["state"]
        yield


@pytest.mark.parametrize("username", ["alice", "bob", "charlie"])
def test_no_contestant_code_reaches_a_juror_in_any_page_image_or_download(
    client, scanned, username
):
    hidden = secrets()
    assert len(hidden) == 3 + 2 * 12
    client.force_login(scanned[username])
    pages = crawl(client)
    pages |= sheet_saves(client, pages)
    images = [
        url
        for url, response in pages.items()
        if response.status_code == 200 and response["Content-Type"] == "image/png"
    ]
    # Every page of every human paper of the juror's problem was fetched and read.
    assert len(images) == 3 * 2
    assert leaks(pages, hidden) == {}


def test_the_crawl_reaches_the_page_images_and_the_printouts_that_hold_them(client, scanned):
    client.force_login(scanned["alice"])
    pages = crawl(client)
    reached = {
        resolve(url.split("?")[0]).url_name
        for url, response in pages.items()
        if response.status_code == 200
    }
    assert {"scan_page_image", "sheet_solution", "paper_detail", "paper_pdf"} <= reached
    assert {"problem_pdf_bundle", "problem_pdf_zip", "comparison", "discussion"} <= reached
    # The bundle holds the six scanned pages as images, and its metadata was read.
    bundle = next(r for url, r in pages.items() if url.startswith("/contests/humans/p1/papers.pdf"))
    text = file_text(bundle.content)
    assert re.search(r"^Pages:\s+7$", text, re.M) and "Producer:" in text


def test_the_search_finds_a_code_where_the_organizer_may_see_it(client, scanned):
    client.force_login(make_user("olga", roles.ORGANIZER))
    pages = crawl(client)
    shown = set().union(*({c for c in CODES if c in everything(u, r)} for u, r in pages.items()))
    assert shown == set(CODES)


def test_image_metadata_is_read_by_the_crawl():
    # A page image carrying the code in a PNG text chunk, compressed or not, or in EXIF, would
    # be caught: the reader decompresses what the raw bytes hide.
    info = PngInfo()
    info.add_text("Author", CODES[0])
    info.add_text("Comment", CODES[1], zip=True)
    exif = Image.Exif()
    exif[0x010E] = CODES[2]  # ImageDescription
    buffer = io.BytesIO()
    Image.new("L", (8, 8), 255).save(buffer, format="PNG", pnginfo=info, exif=exif)
    text = file_text(buffer.getvalue())
    assert [code in text for code in CODES] == [True, True, True]
    assert CODES[1] not in buffer.getvalue().decode("latin-1")


def test_stored_pages_are_served_without_metadata(scanned):
    # What the crawl fetched is the stored file itself: no text chunk, no EXIF.
    for name in ScanPage.objects.values_list("image", flat=True)[:3]:
        image = Image.open(settings.SCANS_DIR / name)
        assert (image.format, image.text, dict(image.getexif())) == ("PNG", {}, {})


def test_human_papers_were_made_as_the_import_makes_them(scanned):
    assert sorted(
        Paper.objects.filter(source=Paper.Source.HUMAN).values_list("identity", flat=True)
    ) == sorted(CODES)
