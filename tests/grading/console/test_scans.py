"""The console's doors to scanned papers: the organizer uploads scanned PDFs (and a page map),
reads the preview (the import's own checks: every sentence, or the codes and pages it would
create), and confirms or cancels; the files wait in a private folder meanwhile. The covers page
turns pasted codes into the covers PDF."""

import html
import io
import re
import zipfile
from collections import Counter
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadhandler import MemoryFileUploadHandler
from django.urls import reverse

from grading.console import imports as console_imports
from grading.console.views.scans import SESSION_KEY
from grading.intake.scans import importing
from grading.intake.scans.importing import ScanFile, scans_import
from grading.jobs import running as jobs
from grading.models import Job, Paper, ScanPage
from tests import factories
from tests.grading.intake.scans import scanmaker


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.IMPORTS_DIR = tmp_path / "imports"
    settings.SCANS_DIR = tmp_path / "scans"
    settings.JOBS_DIR = tmp_path / "jobs"
    return settings


def _run_the_job(response, contest) -> Job:
    """What the task worker does with the confirmation's job; the job, finished."""
    job = Job.objects.get(kind=Job.Kind.IMPORT_SCANS, state=Job.State.QUEUED)
    assert response["Location"] == reverse("job", args=[contest.slug, job.pk])
    jobs.job_run(job_id=job.pk, worker_id="test")
    job.refresh_from_db()
    return job


@pytest.fixture
def contest(db):
    return factories.make_contest("iol", problems=2, papers=1)


@pytest.fixture
def client(client, organizer):
    client.force_login(organizer)
    return client


def url(name: str, contest) -> str:
    return reverse(f"console:{name}", args=[contest.slug])


def _file(name: str, data: bytes) -> io.BytesIO:
    handle = io.BytesIO(data)
    handle.name = name
    return handle


def _files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []


def _counts(contest) -> dict[tuple[str, int], int]:
    return dict(
        Counter(
            ScanPage.objects.filter(paper__contest=contest).values_list(
                "paper__identity", "problem__number"
            )
        )
    )


def _text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def scans(contest) -> list[tuple[str, bytes]]:
    covers = scanmaker.covers(contest, ["C101", "C102"])
    first = [
        covers["C101", 1],
        *scanmaker.answer_pages("C101", 1, 2),
        covers["C101", 2],
        *scanmaker.answer_pages("C101", 2, 1),
    ]
    second = [
        covers["C102", 1],
        *scanmaker.answer_pages("C102", 1, 1),
        covers["C102", 2],
        *scanmaker.answer_pages("C102", 2, 1),
    ]
    return [("scan-001.pdf", scanmaker.as_pdf(first)), ("scan-002.pdf", scanmaker.as_pdf(second))]


def test_the_preview_names_codes_and_pages_and_the_confirmation_imports_them(
    client, contest, scans, settings
):
    response = client.post(
        url("import_scans", contest), {"files": [_file(name, data) for name, data in scans]}
    )
    assert response.status_code == 200
    text = _text(response)
    assert "Would import 5 scanned pages: 4 answers of 2 contestants (2 new papers)." in text
    for line in (
        "C101, problem 1: 2 pages.",
        "C101, problem 2: 1 page.",
        "C102, problem 1: 1 page.",
        "C102, problem 2: 1 page.",
    ):
        assert line in text
    # The preview wrote nothing but the upload's private folder.
    assert ScanPage.objects.count() == 0
    assert not Paper.objects.filter(source=Paper.Source.HUMAN).exists()
    assert _files(settings.SCANS_DIR) == []
    staged = client.session[SESSION_KEY]
    assert len(_files(settings.IMPORTS_DIR)) == 2

    response = client.post(
        url("import_scans_confirm", contest), {"token": staged["token"], "confirm": "1"}
    )

    assert response.status_code == 302
    assert _files(settings.IMPORTS_DIR) == []
    assert SESSION_KEY not in client.session
    job = _run_the_job(response, contest)
    assert _counts(contest) == {("C101", 1): 2, ("C101", 2): 1, ("C102", 1): 1, ("C102", 2): 1}
    assert len(_files(settings.SCANS_DIR)) == 5
    assert jobs.job_file(job).read_text(encoding="utf-8").splitlines()[0] == (
        "Imported 5 scanned pages: 4 answers of 2 contestants (2 new papers)."
    )


def test_a_page_map_sorts_scans_without_covers(client, contest, settings):
    pages = [*scanmaker.answer_pages("C201", 1, 2), *scanmaker.answer_pages("C201", 2, 1)]
    page_map = b"file,problem,first_page,last_page\nC201.pdf,1,1,2\nC201.pdf,2,3,3\n"
    response = client.post(
        url("import_scans", contest),
        {
            "files": [_file("C201.pdf", scanmaker.as_pdf(pages))],
            "page_map": _file("map.csv", page_map),
        },
    )
    assert "C201, problem 1: 2 pages." in _text(response)
    confirmed = client.post(
        url("import_scans_confirm", contest),
        {"token": client.session[SESSION_KEY]["token"], "confirm": "1"},
    )
    _run_the_job(confirmed, contest)
    assert _counts(contest) == {("C201", 1): 2, ("C201", 2): 1}


def test_every_problem_is_a_sentence_and_nothing_is_kept(client, contest, settings):
    pages = [scanmaker.noise(), *scanmaker.answer_pages("C301", 1, 1)]
    response = client.post(
        url("import_scans", contest),
        {
            "files": [
                _file("scan-001.pdf", scanmaker.as_pdf(pages)),
                _file("Anna Smith.pdf", scanmaker.as_pdf(pages)),
                _file("scan-003.pdf", b"not a pdf"),
            ]
        },
    )
    assert response.status_code == 422
    text = _text(response)
    assert "Nothing was imported" in text
    assert "scan-003.pdf: this is not a PDF file; scan to PDF" in text
    assert "Anna Smith.pdf: a scanned file's name may be a contestant's code" in text
    assert _files(settings.IMPORTS_DIR) == []
    assert _files(settings.SCANS_DIR) == []
    assert SESSION_KEY not in client.session


def test_sentences_of_the_pages_read_are_shown_and_nothing_written(client, contest, settings):
    response = client.post(
        url("import_scans", contest),
        {"files": [_file("scan-001.pdf", scanmaker.as_pdf([scanmaker.noise()]))]},
    )
    assert response.status_code == 422
    assert "scan-001.pdf, page 1" in _text(response)
    assert _files(settings.IMPORTS_DIR) == []
    assert ScanPage.objects.count() == 0


def test_cancelling_removes_the_upload_and_imports_nothing(client, contest, scans, settings):
    client.post(url("import_scans", contest), {"files": [_file(*scans[0])]})
    token = client.session[SESSION_KEY]["token"]
    response = client.post(url("import_scans_confirm", contest), {"token": token, "cancel": "1"})
    assert response.status_code == 302
    assert _files(settings.IMPORTS_DIR) == []
    assert ScanPage.objects.count() == 0


def test_a_confirmation_with_another_token_imports_nothing(client, contest, scans, settings):
    client.post(url("import_scans", contest), {"files": [_file(*scans[0])]})
    response = client.post(
        url("import_scans_confirm", contest), {"token": "x" * 32, "confirm": "1"}, follow=True
    )
    assert "This preview is no longer current; upload the scans again." in _text(response)
    assert ScanPage.objects.count() == 0


def _errors(response) -> list[str]:
    return re.findall(r"<li class=\"error\">(.*?)</li>", _text(response))


def test_an_upload_larger_than_the_bound_is_refused_unread_with_a_sentence_naming_it(
    client, contest, settings
):
    settings.SCAN_UPLOAD_MAX_BYTES = 1024 * 1024
    response = client.post(
        url("import_scans", contest), {"files": [_file("scan-001.pdf", b"x" * 1_200_000)]}
    )
    assert response.status_code == 413
    assert _errors(response)[0] == (
        "The upload is 1.1 MB; the scans uploaded at once come to at most 1 MB "
        "(SCAN_UPLOAD_MAX_BYTES). Upload the files in a few parts."
    )
    assert _files(settings.IMPORTS_DIR) == []


def _batch(count: int) -> tuple[list[tuple[str, bytes]], bytes]:
    """`count` contestants' scans without covers, two blank pages each, and their page map."""
    files = [(f"C{100 + n}.pdf", scanmaker.blank_pages_pdf(2)) for n in range(1, count + 1)]
    rows = "".join(f"{name},1,1,1\n{name},2,2,2\n" for name, _ in files)
    return files, f"file,problem,first_page,last_page\n{rows}".encode()


def test_a_batch_of_many_scans_chosen_at_once_is_previewed_and_imported_by_one_job(
    client, contest, settings
):
    files, page_map = _batch(12)
    previewed = client.post(
        url("import_scans", contest),
        {
            "files": [_file(name, data) for name, data in files],
            "page_map": _file("map.csv", page_map),
        },
    )
    assert previewed.status_code == 200
    assert re.findall(r'<p id="import-summary">(.*?)</p>', _text(previewed)) == [
        "Would read 24 scanned pages in 12 files: the import reads the covers and sorts the "
        "pages in the background, and its report says what each contestant got."
    ]
    confirmed = client.post(
        url("import_scans_confirm", contest),
        {"token": client.session[SESSION_KEY]["token"], "confirm": "1"},
    )
    job = _run_the_job(confirmed, contest)
    assert job.state == Job.State.DONE
    assert _counts(contest) == {(f"C{100 + n}", p): 1 for n in range(1, 13) for p in (1, 2)}


def test_a_large_uploads_preview_checks_the_page_map_against_the_page_counts(
    client, contest, settings, monkeypatch
):
    monkeypatch.setattr(console_imports, "SCANS_IN_REQUEST", 0)
    page_map = b"file,problem,first_page,last_page\nC201.pdf,1,1,1\nC201.pdf,2,3,3\n"
    response = client.post(
        url("import_scans", contest),
        {
            "files": [_file("C201.pdf", scanmaker.blank_pages_pdf(2))],
            "page_map": _file("map.csv", page_map),
        },
    )
    assert response.status_code == 422
    assert _errors(response) == [
        "map.csv, row 3: C201.pdf has 2 pages, not 3.",
        "C201.pdf, page 2 is in no row of map.csv.",
    ]
    assert _files(settings.IMPORTS_DIR) == []


def test_a_zip_of_scans_is_one_upload(client, contest, settings):
    files, page_map = _batch(3)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in files:
            zf.writestr(f"scans/{name}", data)
        zf.writestr("__MACOSX/._C101.pdf", b"junk a Mac adds")
    previewed = client.post(
        url("import_scans", contest),
        {
            "files": [_file("scans.zip", archive.getvalue())],
            "page_map": _file("map.csv", page_map),
        },
    )
    assert re.findall(r'<p id="import-summary">(.*?)</p>', _text(previewed)) == [
        "Would import 6 scanned pages: 6 answers of 3 contestants (3 new papers)."
    ]
    confirmed = client.post(
        url("import_scans_confirm", contest),
        {"token": client.session[SESSION_KEY]["token"], "confirm": "1"},
    )
    _run_the_job(confirmed, contest)
    assert _counts(contest) == {(f"C{100 + n}", p): 1 for n in range(1, 4) for p in (1, 2)}


def test_a_zip_of_more_scans_than_an_upload_takes_is_refused_unextracted(client, contest, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 3
    files, _ = _batch(4)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in files:
            zf.writestr(name, data)
    response = client.post(
        url("import_scans", contest), {"files": [_file("scans.zip", archive.getvalue())]}
    )
    assert response.status_code == 422
    assert _errors(response) == [
        "scans.zip: the zip holds 4 files; at most 3 are accepted (DATA_UPLOAD_MAX_NUMBER_FILES)."
    ]
    assert _files(settings.IMPORTS_DIR) == []


def test_more_files_than_an_upload_takes_get_a_sentence_naming_the_setting(
    client, contest, settings
):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 3
    files, _ = _batch(4)
    response = client.post(
        url("import_scans", contest), {"files": [_file(name, data) for name, data in files]}
    )
    assert response.status_code == 413
    assert _errors(response) == [
        "The upload holds more than 3 files, the most one upload takes "
        "(DATA_UPLOAD_MAX_NUMBER_FILES). Upload them as one zip, or in a few parts."
    ]
    assert _files(settings.IMPORTS_DIR) == []


def test_a_form_too_large_besides_its_files_gets_a_sentence_naming_the_setting(
    client, contest, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post(url("import_scans", contest), {"note": "x" * 2000})
    assert response.status_code == 413
    assert _errors(response) == [
        "The form's fields come to more than 1,000 bytes, the most one post takes besides its "
        "files (DATA_UPLOAD_MAX_MEMORY_SIZE)."
    ]


def test_any_other_page_answers_too_many_files_with_the_sentence_not_a_bare_400(
    client, contest, settings
):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 1
    response = client.post(
        reverse("console:import_problemset", args=[contest.slug]),
        {"files": [_file("test.csv", b"id\n"), _file("solution.csv", b"id\n")]},
    )
    assert response.status_code == 413
    assert re.findall(r'<p id="why">(.*?)</p>', _text(response)) == [
        "The upload holds more than 1 files, the most one upload takes "
        "(DATA_UPLOAD_MAX_NUMBER_FILES). Upload them as one zip, or in a few parts."
    ]


def test_scans_are_streamed_to_temporary_files_never_held_in_memory(
    client, contest, scans, monkeypatch
):
    held = []
    real = MemoryFileUploadHandler.receive_data_chunk
    monkeypatch.setattr(
        MemoryFileUploadHandler,
        "receive_data_chunk",
        lambda self, raw, start: held.append(len(raw)) or real(self, raw, start),
    )
    response = client.post(url("import_scans", contest), {"files": [_file(*scans[0])]})
    assert response.status_code == 200
    assert held == []


def test_a_final_contest_takes_no_scans(client, contest, scans):
    contest.state = contest.State.FINAL
    contest.save(update_fields=["state"])
    response = client.post(url("import_scans", contest), {"files": [_file(*scans[0])]})
    assert response.status_code == 403
    assert "is final" in _text(response)
    assert ScanPage.objects.count() == 0


@pytest.mark.parametrize("who", ["juror", "chair", None])
def test_no_one_but_the_organizer_finds_the_scan_pages(client, contest, who, request):
    client.logout()
    if who:
        client.force_login(request.getfixturevalue(who))
    for name in ("import_scans", "print_covers"):
        response = client.get(url(name, contest))
        assert response.status_code == (404 if who else 302)


def test_the_covers_page_turns_pasted_codes_into_one_cover_per_code_and_problem(client, contest):
    page = client.get(url("print_covers", contest))
    assert page.status_code == 200
    response = client.post(url("print_covers", contest), {"codes": "C101\n\n  C102 \n"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="iol-covers.pdf"'
    assert response["Cache-Control"] == "private, no-store"
    document = pdfium.PdfDocument(response.content)
    assert len(document) == 4
    text = "".join(document[i].get_textpage().get_text_range() for i in range(len(document)))
    assert "C101" in text and "C102" in text


def test_the_covers_page_refuses_names_and_repeated_codes_with_sentences(client, contest):
    response = client.post(url("print_covers", contest), {"codes": "C101\nAnna Smith\nC101"})
    assert response.status_code == 422
    text = _text(response)
    assert "Code 2, “Anna Smith”:" in text
    assert "Code 3, “C101”, comes twice." in text
    response = client.post(url("print_covers", contest), {"codes": ""})
    assert response.status_code == 422
    assert "This field is required." in _text(response)


def test_the_imports_page_links_to_the_scans_and_the_covers(client, contest):
    text = _text(client.get(url("imports", contest)))
    assert url("import_scans", contest) in text
    assert url("print_covers", contest) in text


def _preview_and_confirm(client, contest, scans):
    client.post(
        url("import_scans", contest), {"files": [_file(name, data) for name, data in scans]}
    )
    return client.post(
        url("import_scans_confirm", contest),
        {"token": client.session[SESSION_KEY]["token"], "confirm": "1"},
    )


def test_scans_of_many_pages_are_previewed_unrendered_and_imported_by_a_job_with_its_progress(
    client, contest, scans, settings, monkeypatch, chair
):
    monkeypatch.setattr(console_imports, "SCANS_IN_REQUEST", 8)  # the scans hold 9 pages
    rendered = []
    real_render = importing.render_page
    monkeypatch.setattr(
        importing, "render_page", lambda *args, **kw: rendered.append(1) or real_render(*args, **kw)
    )

    previewed = client.post(
        url("import_scans", contest), {"files": [_file(name, data) for name, data in scans]}
    )
    assert re.findall(r'<p id="import-summary">(.*?)</p>', _text(previewed)) == [
        "Would read 9 scanned pages in 2 files: the import reads the covers and sorts the pages "
        "in the background, and its report says what each contestant got."
    ]
    assert rendered == []
    confirmed = client.post(
        url("import_scans_confirm", contest),
        {"token": client.session[SESSION_KEY]["token"], "confirm": "1"},
    )

    job = Job.objects.get()
    assert job.kind == Job.Kind.IMPORT_SCANS and job.state == Job.State.QUEUED
    assert confirmed["Location"] == reverse("job", args=[contest.slug, job.pk])
    assert _files(settings.IMPORTS_DIR) == []  # moved to the job's folder
    assert ScanPage.objects.count() == 0

    assert jobs.job_run(job_id=job.pk, worker_id="test") == Job.State.DONE

    job.refresh_from_db()
    # Every page of the two files was read: 5 answer pages and 4 covers.
    assert job.done == job.total == 9
    assert _counts(contest) == {("C101", 1): 2, ("C101", 2): 1, ("C102", 1): 1, ("C102", 2): 1}
    assert jobs.job_file(job).read_text(encoding="utf-8").splitlines() == [
        "Imported 5 scanned pages: 4 answers of 2 contestants (2 new papers).",
        "C101, problem 1: 2 pages.",
        "C101, problem 2: 1 page.",
        "C102, problem 1: 1 page.",
        "C102, problem 2: 1 page.",
    ]
    page = _text(client.get(reverse("job", args=[contest.slug, job.pk])))
    assert "Imported; the report says how many pages each answer got." in page
    assert "Download the import's report (text)" in page
    # The report names contestants by their codes: not the chair's to download.
    client.force_login(chair)
    download = client.get(reverse("job_download", args=[contest.slug, job.pk]))
    assert download.status_code == 403


def test_a_scans_job_whose_checks_fail_later_names_no_code(
    client, contest, scans, settings, monkeypatch
):
    monkeypatch.setattr(console_imports, "SCANS_IN_REQUEST", 0)
    _preview_and_confirm(client, contest, scans[:1])
    job = Job.objects.get()
    # Meanwhile, C101's answers came in another way: the job's import is refused.
    scans_import(contest=contest, files=[ScanFile(*scans[0])])
    with pytest.raises(ValidationError):
        jobs.job_run(job_id=job.pk, worker_id="test")
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.error == (
        "Nothing was imported: the scans have 2 problems, each a sentence in the import's "
        "report. Fix them and upload the scans again."
    )
    assert ScanPage.objects.filter(paper__identity="C101").count() == 3  # the other import's


def test_a_large_uploads_cover_problems_are_the_organizers_to_download_from_the_failed_job(
    client, contest, scans, settings, monkeypatch, chair
):
    monkeypatch.setattr(console_imports, "SCANS_IN_REQUEST", 0)  # the preview reads no cover
    noisy = ("scan-009.pdf", scanmaker.as_pdf([scanmaker.noise()]))
    _preview_and_confirm(client, contest, [*scans, noisy])
    job = Job.objects.get()
    with pytest.raises(ValidationError):
        jobs.job_run(job_id=job.pk, worker_id="test")
    job.refresh_from_db()
    assert job.error == (
        "Nothing was imported: the scans have 1 problem, each a sentence in the import's "
        "report. Fix them and upload the scans again."
    )
    download = client.get(reverse("job_download", args=[contest.slug, job.pk]))
    assert download.status_code == 200
    assert b"".join(download.streaming_content).decode().splitlines() == [
        "scan-009.pdf, page 1 is unreadable (no cover found before it)."
    ]
    assert "Download the import's report (text)" in _text(
        client.get(reverse("job", args=[contest.slug, job.pk]))
    )
    assert ScanPage.objects.count() == 0
    client.force_login(chair)
    assert client.get(reverse("job_download", args=[contest.slug, job.pk])).status_code == 403
