"""Printing at the contest's size: a scanned page's image goes through WeasyPrint once, however
many printouts hold it and however often they are made; the whole contest's zip is written on
disk file by file as each is ready; batches run in the bounded, recycled pool."""

import hashlib
import io
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pypdf
import pytest
import weasyprint
from django.conf import settings

from grading.jobs import running as jobs
from grading.models import Job, ScanPage
from grading.printing import batch as pdf_batch
from grading.printing import pdf
from grading.printing import selectors as pdf_selectors
from tests import factories
from tests.grading.scan_pages import add_human_papers

CODES = ["C-4471-QX", "C-9902-ZU"]


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    settings.CACHE_DIR = tmp_path / "cache"
    settings.JOBS_DIR = tmp_path / "jobs"
    # In this process, so that what WeasyPrint is given can be counted.
    settings.PRINT_WORKERS = 1
    return tmp_path


@pytest.fixture
def scanned(db, juror):
    """One AI paper and two human papers of two pages per problem, in two problems."""
    contest = factories.make_contest("scan", identities=["Team Orca"])
    add_human_papers(contest, CODES, pages=2)
    factories.assign(contest, [juror], problems=[1, 2])
    return contest


@pytest.fixture
def image_encodings(monkeypatch):
    """The SHA-256 of every scanned page image WeasyPrint was given to encode."""
    seen = []
    real = weasyprint.HTML

    def counting(*args, string=None, **kwargs):
        if string and pdf.SCAN_DATA_URL in string:
            seen.append(hashlib.sha256(string.encode()).hexdigest())
        return real(*args, string=string, **kwargs)

    monkeypatch.setattr(weasyprint, "HTML", counting)
    return seen


def _distinct_images() -> int:
    root = Path(settings.SCANS_DIR)
    return len({(root / page.image).read_bytes() for page in ScanPage.objects.all()})


def _run_printouts(contest, user) -> bytes:
    job = Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=contest, requested_by=user)
    assert jobs.job_run(job_id=job.pk, worker_id="w1") == Job.State.DONE
    job.refresh_from_db()
    return jobs.job_file(job).read_bytes()


def _images_per_page(data: bytes, tmp_path: Path) -> list[str]:
    path = tmp_path / "read.pdf"
    path.write_bytes(data)
    listing = subprocess.run(
        ["pdfimages", "-list", str(path)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    return [line.split()[0] for line in listing]


def test_a_scanned_page_is_encoded_once_for_the_whole_contest_and_not_again_on_a_second_run(
    scanned, chair, image_encodings, tmp_path
):
    # Each page is in four files (the paper and its bundle, without and with marking pages);
    # the test's pages of the same position are the same picture, so each distinct one counts.
    distinct = _distinct_images()
    data = _run_printouts(scanned, chair)
    assert (len(image_encodings), len(set(image_encodings))) == (distinct, distinct)

    # Every file holding the pages draws them: two human papers of two pages in the bundle.
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        bundle = archive.read(
            "scan-printouts/with-marking-pages/scan-p1-all-papers-with-marking-pages.pdf"
        )
    assert len(_images_per_page(bundle, tmp_path)) == 4

    # A second run with the printouts gone from the cache lays them out again, but the pages'
    # own PDFs are kept: no image is encoded again.
    kept = {image.pdf for image in _drawn_images(scanned)}
    for path in (Path(settings.CACHE_DIR) / "pdf").rglob("*.pdf"):
        if str(path) not in kept:
            path.unlink()
    _run_printouts(scanned, chair)
    assert len(image_encodings) == distinct


def _drawn_images(contest) -> tuple[pdf.ScanImage, ...]:
    htmls = []
    for problem in contest.problems.select_related("contest"):
        htmls += [
            html for _, html in pdf.problem_htmls(pdf_selectors.problem_print(problem=problem))
        ]
    images, _ = pdf.scan_parts(htmls)
    return images


def test_a_paper_alone_and_then_in_its_bundle_encodes_its_pages_once(
    scanned, image_encodings, tmp_path
):
    problem = scanned.problems.select_related("contest").get(number=1)
    htmls = [html for _, html in pdf.problem_htmls(pdf_selectors.problem_print(problem=problem))]
    singles = [pdf.cached_pdf(html) for html in htmls]
    bundle = pdf.cached_bundle(htmls, title=pdf.bundle_title(problem, count=len(htmls)))
    # The two human papers' pages are the same two pictures: two images, encoded once each.
    assert len(image_encodings) == 2
    # The AI paper draws none, each human paper its two pages, the bundle all four.
    assert sorted(len(_images_per_page(single, tmp_path)) for single in singles) == [0, 2, 2]
    assert len(_images_per_page(bundle, tmp_path)) == 4


def test_the_whole_contests_zip_grows_on_disk_as_each_file_is_ready(
    db, juror, chair, folders, monkeypatch
):
    contest = factories.make_contest("small", problems=1, papers=3, identities=["A", "B", "C"])
    job = Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=contest, requested_by=chair)
    archive = jobs.job_folder(job) / ".work" / "small-printouts.zip"
    sizes = []
    real = pdf_batch.run_job

    def measured(render, **kwargs):
        sizes.append(archive.stat().st_size if archive.exists() else None)
        return real(render, **kwargs)

    monkeypatch.setattr(pdf_batch, "run_job", measured)
    assert jobs.job_run(job_id=job.pk, worker_id="w1") == Job.State.DONE
    # Eight files (a bundle and three papers, twice): before each is rendered, the archive on
    # disk already holds every file made before it.
    assert len(sizes) == 8
    assert [size is not None for size in sizes] == [True] * 8
    assert [later > earlier for earlier, later in zip(sizes, sizes[1:], strict=False)] == [True] * 7


def test_the_pool_is_bounded_and_its_workers_are_replaced_after_so_many_files(settings):
    settings.PRINT_TASKS_PER_CHILD = 3
    # os.readlink("/proc/self") is the process's id, and a builtin, which a worker can load.
    pids = [pid for _, pid in pdf_batch.in_pools(os.readlink, ["/proc/self"] * 13, workers=2)]
    # Thirteen files on two workers replaced after three files each: at most six files per
    # pool of two, so three pools, and no worker made more than six (its pool's share).
    assert (len(pids), len(set(pids)) >= 3, max(map(pids.count, pids)) <= 6) == (13, True, True)


@pytest.fixture
def layouts(monkeypatch):
    """The <title> of every printout WeasyPrint laid out (a scanned page's own image PDF has
    none and is not counted)."""
    from grading.printing import engine

    seen = []
    real = engine.document

    def counting(html):
        title = re.search(r"<title>(.*?)</title>", html)
        if title:
            seen.append(title[1])
        return real(html)

    monkeypatch.setattr(engine, "document", counting)
    return seen


def test_the_whole_contests_bundles_are_merged_from_their_papers_each_laid_out_once(
    scanned, chair, layouts, tmp_path
):
    # Issue 32: each variant's bundle was laid out again, all of it by one process.
    data = _run_printouts(scanned, chair)
    papers = scanned.papers.count()
    # Each paper of each problem, without and with marking pages: once each, and nothing more.
    assert (len(layouts), len(set(layouts))) == (2 * 2 * papers, 2 * papers)

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        folder = "scan-printouts/with-marking-pages"
        bundle = archive.read(f"{folder}/scan-p1-all-papers-with-marking-pages.pdf")
        singles = [
            archive.read(name)
            for name in sorted(archive.namelist())
            if name.startswith(f"{folder}/scan-p1-") and "all-papers" not in name
        ]
    merged, parts = (
        pypdf.PdfReader(io.BytesIO(bundle)),
        [pypdf.PdfReader(io.BytesIO(single)) for single in singles],
    )
    # The papers' pages in label order, each paper's bookmarks (its label, its tasks, its
    # marks) in the bundle's outline, the bundle's title and the papers' language and makers.
    assert len(merged.pages) == sum(len(part.pages) for part in parts)
    assert [page.extract_text() for page in merged.pages] == [
        page.extract_text() for part in parts for page in part.pages
    ]
    assert _outline(merged) == _outlines_one_after_the_other(parts)
    assert [title for level, title, _ in _outline(merged) if level == 0] == [
        f"Paper {label}" for label in _labels(scanned)
    ]
    info = merged.metadata
    assert (info.title, info.creator, merged.trailer["/Root"]["/Lang"]) == (
        f"Contest scan · P1 · {papers} papers",
        "Jury",
        "en",
    )
    assert info.producer == parts[0].metadata.producer
    assert len(_images_per_page(bundle, tmp_path)) == 4


def _outline(reader, *, first_page=0) -> list[tuple[int, str, int]]:
    """(depth, title, page) of every bookmark, in order, its page counted from `first_page`."""

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                yield from walk(item, depth + 1)
            else:
                yield depth, item.title, first_page + reader.get_destination_page_number(item)

    return list(walk(reader.outline, 0))


def _outlines_one_after_the_other(parts) -> list[tuple[int, str, int]]:
    entries, first_page = [], 0
    for part in parts:
        entries += _outline(part, first_page=first_page)
        first_page += len(part.pages)
    return entries


def _labels(contest, number=1) -> list[str]:
    return sorted(contest.problems.get(number=number).paper_labels.values_list("label", flat=True))


def test_a_large_bundle_alone_makes_its_papers_first_and_counts_them_as_they_are_ready(
    scanned,
):
    problem = scanned.problems.select_related("contest").get(number=1)
    htmls = [html for _, html in pdf.problem_htmls(pdf_selectors.problem_print(problem=problem))]
    pdf.cached_pdf(htmls[0])
    job = pdf_batch.RenderJob.bundle(htmls, title=pdf.bundle_title(problem, count=len(htmls)))
    counts = []
    pdf_batch.render_one(job, progress=counts.append)
    # The paper in the cache is ready from the start, each other one as the pool makes it; the
    # bundle is made of them, and they stay in the cache, where the paper downloads find them.
    assert counts == [1, 2, 3, 3]
    parts = [pypdf.PdfReader(paper) for paper in job.papers]
    merged = pypdf.PdfReader(job.cache_file)
    assert len(merged.pages) == sum(len(part.pages) for part in parts)
    assert _outline(merged) == _outlines_one_after_the_other(parts)
