"""The console's imports: each kind previews (the importer's dry run, nothing written) and then
imports on confirmation; a bad file writes nothing and shows the very sentences the management
command prints for it (the importers' own refused-input tests, run through the browser path);
uploads wait in a private folder that confirming or cancelling removes; a zip of record folders
is checked before extraction and imported by a background job."""

import html
import io
import json
import os
import re
import zipfile
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connections
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.console import imports as console_imports
from grading.console.views.imports import SESSION_KEY
from grading.intake.importers import outputs_import, problemset_import
from grading.jobs import running as jobs
from grading.models import Job, Paper, Solution
from rubrics.models import Contest, Criterion, Task
from tests.factories import make_contest
from tests.fuzz import assert_sentences, row_counts
from tests.grading import scenario
from tests.grading.intake import test_importers as importer_tests
from tests.grading.intake import test_schemes as scheme_tests

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PROBLEMSET = FIXTURES / "importers" / "problemset"
OUTPUTS = FIXTURES / "importers" / "outputs"
RECORDS = OUTPUTS / "records"
SCHEMES = FIXTURES / "schemes"


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.IMPORTS_DIR = tmp_path / "imports"
    settings.JOBS_DIR = tmp_path / "jobs"
    return settings


@pytest.fixture
def client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture
def oru(db):
    """Contest "oru30" from the fixture problem set, no papers yet."""
    problemset_import(
        contest_slug="oru30", paths=[PROBLEMSET / "test.csv", PROBLEMSET / "solution.csv"]
    )
    return Contest.objects.get(slug="oru30")


def url(name: str, contest: str) -> str:
    return reverse(f"console:{name}", args=[contest])


def upload(path: Path, name: str | None = None) -> io.BytesIO:
    handle = io.BytesIO(path.read_bytes())
    handle.name = name or path.name
    return handle


def named(content: str | bytes, name: str) -> io.BytesIO:
    handle = io.BytesIO(content.encode("utf-8") if isinstance(content, str) else content)
    handle.name = name
    return handle


def zipped(files: dict[str, str | bytes], name: str = "records.zip") -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, content in files.items():
            archive.writestr(member, content)
    return named(buffer.getvalue(), name)


def zipped_folder(folder: Path, name: str = "records.zip") -> io.BytesIO:
    return zipped(
        {
            str(path.relative_to(folder.parent)): path.read_bytes()
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        },
        name,
    )


def page_errors(response) -> list[str]:
    text = response.content.decode()
    section = re.search(r'<section class="card" id="import-errors">(.*?)</section>', text, re.S)
    if section is None:
        return []
    return [html.unescape(item) for item in re.findall(r'<li class="error">(.*?)</li>', section[1])]


def summary_of(response) -> str:
    return html.unescape(
        re.search(r'<p id="import-summary">(.*?)</p>', response.content.decode())[1]
    )


def token_of(response) -> str:
    return re.search(r'name="token" value="([^"]+)"', response.content.decode())[1]


def staged_folders(settings) -> list[Path]:
    root = Path(settings.IMPORTS_DIR)
    return list(root.iterdir()) if root.is_dir() else []


def command_sentences(*args, **options) -> list[str]:
    """The sentences a management command refuses with, one per line of its error."""
    with pytest.raises(CommandError) as refusal:
        call_command(*args, stdout=io.StringIO(), **options)
    lines = str(refusal.value).splitlines()
    if lines[0] == "Nothing was imported; fix these first:":
        return [line.removeprefix("  - ") for line in lines[1:]]
    return lines


def command_output(*args, **options) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue().strip()


def parameters(test) -> list:
    """The cases of an importer test's parametrize mark: the same hostile files."""
    mark = next(mark for mark in test.pytestmark if mark.name == "parametrize")
    return mark.args[1]


# --- each kind previews, then imports on confirmation -----------------------------------------


def test_a_problem_set_previews_as_the_dry_run_then_imports_on_confirmation(client, db, folders):
    Contest.objects.create(slug="oru30", name="Oru 2030")
    test_csv, solution_csv = PROBLEMSET / "test.csv", PROBLEMSET / "solution.csv"
    dry_run = command_output(
        "import_problemset", "--contest", "oru30", "--dry-run", str(test_csv), str(solution_csv)
    )

    preview = client.post(
        url("import_problemset", "oru30"),
        {"test": upload(test_csv), "solution": upload(solution_csv)},
    )

    assert preview.status_code == 200
    assert summary_of(preview) == dry_run
    assert Task.objects.count() == 0
    (folder,) = staged_folders(folders)
    assert client.session[SESSION_KEY]["token"] == folder.name
    # The session holds the token and the file names, not the files.
    assert "invented language" not in json.dumps(dict(client.session))
    confirmed = client.post(url("import_confirm", "oru30"), {"token": token_of(preview)})
    assert confirmed.status_code == 302
    assert confirmed["Location"] == url("import_problemset", "oru30")
    assert Task.objects.filter(problem__contest__slug="oru30").count() == 5
    assert staged_folders(folders) == []
    assert SESSION_KEY not in client.session


def test_a_linguini_jsonl_problem_set_imports(client, db):
    Contest.objects.create(slug="ling", name="Linguini")
    preview = client.post(
        url("import_problemset", "ling"), {"jsonl": upload(PROBLEMSET / "linguini.jsonl")}
    )
    assert preview.status_code == 200, page_errors(preview)
    client.post(url("import_confirm", "ling"), {"token": token_of(preview)})
    assert Task.objects.filter(problem__contest__slug="ling").exists()


def test_grading_schemes_show_their_criteria_table_before_confirming(client, db):
    contest = make_contest("schemes", problems=2, papers=2, criteria=())

    preview = client.post(
        url("import_schemes", "schemes"),
        {"files": [upload(SCHEMES / "p1.toml"), upload(SCHEMES / "p2.toml")]},
    )

    assert preview.status_code == 200, page_errors(preview)
    text = preview.content.decode()
    assert text.count('class="grid import-criteria"') == 2
    assertInHTML("<td>A1</td>", text)
    assert "p1.toml: problem 1: created" in text
    assert Criterion.objects.count() == 0
    client.post(url("import_confirm", "schemes"), {"token": token_of(preview)})
    assert Criterion.objects.filter(problem__contest=contest).count() > 0


def test_a_zip_of_record_folders_previews_then_imports_through_a_job(client, oru, folders):
    dry_run = command_output("import_outputs", "--contest", "oru30", "--dry-run", str(RECORDS))

    preview = client.post(url("import_outputs", "oru30"), {"file": zipped_folder(RECORDS)})

    assert preview.status_code == 200, page_errors(preview)
    assert summary_of(preview) == dry_run
    assert Paper.objects.count() == 0
    confirmed = client.post(url("import_confirm", "oru30"), {"token": token_of(preview)})
    job = Job.objects.get()
    assert job.kind == Job.Kind.IMPORT_OUTPUTS and job.state == Job.State.QUEUED
    assert confirmed["Location"] == reverse("job", args=["oru30", job.pk])
    assert staged_folders(folders) == []  # moved to the job's folder
    assert Paper.objects.count() == 0

    assert jobs.job_run(job_id=job.pk, worker_id="test") == Job.State.DONE

    job.refresh_from_db()
    assert job.done == job.total == Solution.objects.count() > 0
    assert set(Paper.objects.values_list("identity", flat=True)) == {
        "team-kestrel",
        "11_anonymous-run",
    }
    report = jobs.job_file(job).read_text(encoding="utf-8")
    assert report.splitlines()[0] == dry_run.replace("Dry run, nothing written. ", "").replace(
        "would be ", ""
    )
    page = client.get(reverse("job", args=["oru30", job.pk])).content.decode()
    assert "Import of AI outputs" in page
    assert "Imported; the report says what each system got." in page
    assert "Download the import's report (text)" in page


def test_a_submission_csv_is_imported_under_the_system_name_given(client, oru):
    preview = client.post(
        url("import_outputs", "oru30"), {"file": upload(OUTPUTS / "heron.csv"), "system": "Heron 2"}
    )
    assert preview.status_code == 200, page_errors(preview)
    assert "Heron 2: created" in preview.content.decode()
    client.post(url("import_confirm", "oru30"), {"token": token_of(preview)})
    assert list(Paper.objects.values_list("identity", flat=True)) == ["Heron 2"]
    assert not Job.objects.exists()


def test_raw_outputs_import_in_the_request(client, oru):
    preview = client.post(url("import_outputs", "oru30"), {"file": upload(OUTPUTS / "raw.jsonl")})
    assert preview.status_code == 200, page_errors(preview)
    client.post(url("import_confirm", "oru30"), {"token": token_of(preview)})
    assert Paper.objects.filter(contest=oru).count() == 2


def test_human_scores_saved_by_excel_with_a_byte_order_mark_are_read_as_without(client, db):
    contest = make_contest("humans")
    upload = named(scenario.HUMANS_CSV.encode("utf-8-sig"), "humans.csv")
    preview = client.post(url("import_human_scores", "humans"), {"file": upload})
    assert preview.status_code == 200, page_errors(preview)
    client.post(url("import_confirm", "humans"), {"token": token_of(preview)})
    assert sorted(contest.human_scores.values_list("contestant", flat=True)) == [
        "H1",
        "H2",
        "H3",
        "H4",
    ]


def test_human_scores_preview_then_replace_the_contest_s_scores(client, db):
    contest = make_contest("humans")
    preview = client.post(
        url("import_human_scores", "humans"), {"file": named(scenario.HUMANS_CSV, "humans.csv")}
    )
    assert preview.status_code == 200, page_errors(preview)
    assert (
        summary_of(preview) == f"Would import 4 human contestants for {contest.name} (replacing 0)."
    )
    assert not contest.human_scores.exists()
    client.post(url("import_confirm", "humans"), {"token": token_of(preview)})
    assert contest.human_scores.count() == 4


# --- cancelling, stale previews, refusals ------------------------------------------------------


def test_cancel_removes_the_uploaded_files_and_writes_nothing(client, oru, folders):
    preview = client.post(url("import_outputs", "oru30"), {"file": upload(OUTPUTS / "heron.csv")})
    assert len(staged_folders(folders)) == 1

    client.post(url("import_confirm", "oru30"), {"token": token_of(preview), "cancel": "1"})

    assert staged_folders(folders) == []
    assert not Paper.objects.exists()


def test_a_preview_replaced_by_a_later_upload_cannot_be_confirmed(client, oru, folders):
    first = client.post(url("import_outputs", "oru30"), {"file": upload(OUTPUTS / "heron.csv")})
    client.post(url("import_outputs", "oru30"), {"file": upload(OUTPUTS / "raw.jsonl")})
    assert len(staged_folders(folders)) == 1  # the first upload's folder is gone

    response = client.post(url("import_confirm", "oru30"), {"token": token_of(first)}, follow=True)

    assert "This preview is no longer current" in response.content.decode()
    assert not Paper.objects.exists()


def test_a_final_contest_refuses_with_the_command_s_sentence(client, oru):
    Contest.objects.filter(pk=oru.pk).update(state=Contest.State.FINAL)
    expected = command_sentences("import_outputs", "--contest", "oru30", str(OUTPUTS / "heron.csv"))

    response = client.post(url("import_outputs", "oru30"), {"file": upload(OUTPUTS / "heron.csv")})

    assert page_errors(response) == expected
    assert response.status_code >= 400
    assert not Paper.objects.exists()


def test_a_body_over_the_upload_limit_is_refused_unread(client, oru, folders):
    folders.IMPORT_UPLOAD_MAX_BYTES = 1024
    from grading.console.views import imports as views

    views.MAX_UPLOAD_BYTES, saved = 1024, views.MAX_UPLOAD_BYTES
    try:
        response = client.post(
            url("import_outputs", "oru30"), {"file": named(b"x" * 200_000, "big.csv")}
        )
    finally:
        views.MAX_UPLOAD_BYTES = saved
    assert response.status_code == 413
    assert "an import's file is at most" in page_errors(response)[0]
    assert staged_folders(folders) == []


# --- zips: bounded before extraction, no path outside the folder --------------------------------


def test_a_zip_with_too_many_members_is_refused_before_extracting(client, oru, folders):
    folders.IMPORT_ZIP_MAX_MEMBERS = 3
    files = {f"r{n}/predictions.json": "[]" for n in range(4)}

    response = client.post(url("import_outputs", "oru30"), {"file": zipped(files)})

    assert page_errors(response) == ["records.zip: the zip holds 4 files; at most 3 are accepted."]
    assert staged_folders(folders) == []


def test_a_zip_bomb_is_refused_by_its_size_once_extracted(client, oru, folders):
    folders.IMPORT_ZIP_MAX_BYTES = 1024 * 1024
    files = {"r/predictions.json": b"[" + b" " * (3 * 1024 * 1024) + b"]"}

    response = client.post(url("import_outputs", "oru30"), {"file": zipped(files)})

    assert page_errors(response) == [
        "records.zip: the zip's files come to 3 MB once extracted; at most 1 MB are accepted."
    ]
    assert staged_folders(folders) == []


@pytest.mark.parametrize("member", ["../evil/predictions.json", "/tmp/evil/predictions.json"])
def test_a_zip_path_escaping_its_folder_is_refused(client, oru, folders, tmp_path, member):
    response = client.post(url("import_outputs", "oru30"), {"file": zipped({member: "[]"})})

    assert page_errors(response) == [
        f"records.zip: “{member}” points outside the zip's folder; such a zip is refused."
    ]
    assert staged_folders(folders) == []
    assert not (tmp_path / "evil").exists()


def test_a_file_that_is_not_a_zip_is_refused_with_a_sentence(client, oru):
    response = client.post(
        url("import_outputs", "oru30"), {"file": named(b"PK\x03\x04no", "r.zip")}
    )
    assert page_errors(response) == ["r.zip: not a zip file, or a damaged one."]


# --- the same hostile files get the same sentences as the commands -----------------------------


@pytest.mark.parametrize(
    ("test", "solution", "sentences"),
    parameters(
        importer_tests.test_a_bad_problem_set_is_refused_with_one_sentence_per_problem_and_nothing_written
    ),
)
def test_a_bad_problem_set_gets_the_command_s_sentences(
    client, db, tmp_path, test, solution, sentences
):
    Contest.objects.create(slug="new", name="New")
    test_path = importer_tests.write(tmp_path / "test.csv", test)
    solution_path = importer_tests.write(tmp_path / "solution.csv", solution)
    expected = command_sentences(
        "import_problemset", "--contest", "new", str(test_path), str(solution_path)
    )
    counts = row_counts()

    response = client.post(
        url("import_problemset", "new"),
        {"test": upload(test_path), "solution": upload(solution_path)},
    )

    assert page_errors(response) == expected == sentences
    assert_sentences(page_errors(response))
    assert row_counts() == counts


@pytest.mark.parametrize(
    ("lines", "sentences"),
    parameters(importer_tests.test_a_bad_linguini_file_is_refused_and_nothing_written),
)
def test_a_bad_linguini_file_gets_the_command_s_sentences(client, db, tmp_path, lines, sentences):
    Contest.objects.create(slug="linguini", name="Linguini")
    path = importer_tests.write(tmp_path / "data.jsonl", lines)
    expected = command_sentences("import_problemset", "--contest", "linguini", str(path))
    counts = row_counts()

    response = client.post(url("import_problemset", "linguini"), {"jsonl": upload(path)})

    assert page_errors(response) == expected == sentences
    assert row_counts() == counts


def _one_upload(files: dict) -> str | None:
    """How the browser takes these files in one upload: "zip" when they are all in record
    folders, "file" for a single CSV or JSONL; None for a set only the command line can give."""
    tops = {Path(name).parts[0] for name in files}
    if all(len(Path(name).parts) > 1 for name in files):
        return "zip"
    if len(files) == 1 and len(tops) == 1:
        return "file"
    return None


OUTPUT_CASES = [
    case
    for case in parameters(
        importer_tests.test_bad_outputs_are_refused_with_one_sentence_per_problem_and_nothing_written
    )
    if _one_upload(case.values[0]) and not case.values[0].get("notes.txt")
]


def test_most_hostile_output_cases_go_through_the_browser():
    assert len(OUTPUT_CASES) >= 15


@pytest.mark.parametrize(("files", "sentences"), OUTPUT_CASES)
def test_bad_outputs_get_the_command_s_sentences(client, oru, tmp_path, files, sentences):
    outputs_import(contest_slug="oru30", paths=[OUTPUTS / "heron.csv"])
    tops = []
    for name, content in files.items():
        importer_tests.write(tmp_path / name, content)
        if tmp_path / Path(name).parts[0] not in tops:
            tops.append(tmp_path / Path(name).parts[0])
    expected = command_sentences("import_outputs", "--contest", "oru30", *map(str, tops))
    counts = row_counts()

    if _one_upload(files) == "zip":
        sent = zipped(
            {
                name: content.encode("utf-8") if isinstance(content, str) else content
                for name, content in files.items()
            }
        )
    else:
        sent = upload(tops[0])
    response = client.post(url("import_outputs", "oru30"), {"file": sent})

    assert page_errors(response) == expected == sentences
    assert row_counts() == counts


@pytest.mark.parametrize(
    ("files", "messages"),
    parameters(
        scheme_tests.test_each_invalid_scheme_is_refused_with_its_sentence_and_nothing_written
    ),
)
def test_a_bad_scheme_gets_the_command_s_sentences(client, db, tmp_path, files, messages):
    blank = make_contest("schemes", problems=2, papers=2, criteria=())
    folder = tmp_path / "schemes"
    folder.mkdir()
    for name, content in files.items():
        path = folder / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(CommandError) as refusal:
        call_command("load_schemes", str(folder), "--contest", blank.slug, stdout=io.StringIO())
    expected = str(refusal.value).splitlines()
    counts = row_counts()

    response = client.post(
        url("import_schemes", "schemes"),
        {"files": [upload(path) for path in sorted(folder.iterdir())]},
    )

    assert page_errors(response) == expected == messages
    assert row_counts() == counts


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('contestant,p1,p2\nAda,10,5\n"Bob,7,2\nCy,3,1\n', "h.csv"),
        ("contestant,p1,p2\nAda,10,x\n", "h.csv"),
        ("contestant,p9\nAda,1\n", "h.csv"),
        ("", "h.csv"),
        ("contestant,p1\nAda,caf\xe9\n".encode("latin-1"), "latin.csv"),
    ],
)
def test_bad_human_scores_get_the_command_s_sentences(client, db, tmp_path, text, name):
    make_contest("humans")
    path = importer_tests.write(tmp_path / name, text)
    expected = command_sentences("import_human_scores", "--contest", "humans", str(path))
    counts = row_counts()

    response = client.post(url("import_human_scores", "humans"), {"file": upload(path)})

    assert page_errors(response) == expected
    assert_sentences(expected)
    assert row_counts() == counts


# --- the job ----------------------------------------------------------------------------------


def test_a_failed_import_job_says_why_and_its_retry_keeps_the_files(client, oru, organizer):
    preview = client.post(url("import_outputs", "oru30"), {"file": zipped_folder(RECORDS)})
    client.post(url("import_confirm", "oru30"), {"token": token_of(preview)})
    job = Job.objects.get()
    Contest.objects.filter(pk=oru.pk).update(state=Contest.State.FINAL)

    with pytest.raises(ValidationError):
        jobs.job_run(job_id=job.pk, worker_id="test")

    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert "final" in job.error and not Paper.objects.exists()
    Contest.objects.filter(pk=oru.pk).update(state=Contest.State.GRADING)
    retry = jobs.job_retry(job=job, user=organizer)
    assert jobs.job_run(job_id=retry.pk, worker_id="test") == Job.State.DONE
    assert Paper.objects.count() == 2


def test_only_one_outputs_import_waits_at_a_time(client, oru):
    first = client.post(url("import_outputs", "oru30"), {"file": zipped_folder(RECORDS)})
    client.post(url("import_confirm", "oru30"), {"token": token_of(first)})
    second = client.post(url("import_outputs", "oru30"), {"file": zipped_folder(RECORDS)})

    response = client.post(url("import_confirm", "oru30"), {"token": token_of(second)})

    assert page_errors(response) == [
        "An import of AI outputs is already waiting or running for this contest; wait for it "
        "to finish, then upload again."
    ]
    assert Job.objects.count() == 1


def test_staged_folders_older_than_a_day_are_swept(folders, oru, tmp_path):
    import os
    import time

    old = Path(folders.IMPORTS_DIR) / "left-over"
    old.mkdir(parents=True)
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    console_imports.stage(
        kind=console_imports.OUTPUTS,
        contest=oru,
        uploads=[console_imports.Upload("a.csv", [b"id,pred\n"])],
    )
    assert not old.exists()


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith(("postgres:", "postgresql:")),
    reason="a second connection sees the first's uncommitted writes on no other database",
)
@pytest.mark.django_db(transaction=True)
def test_the_job_s_progress_is_seen_outside_the_import_s_transaction(
    folders, organizer, monkeypatch, tmp_path
):
    problemset_import(
        contest_slug="oru30", paths=[PROBLEMSET / "test.csv", PROBLEMSET / "solution.csv"]
    )
    contest = Contest.objects.get(slug="oru30")
    staged = console_imports.stage(
        kind=console_imports.OUTPUTS,
        contest=contest,
        uploads=[console_imports.Upload("records.zip", [zipped_folder(RECORDS).getvalue()])],
    )
    job = console_imports.confirm(staged, contest, user=organizer)
    monkeypatch.setattr(console_imports, "PROGRESS_EVERY_SECONDS", 0)
    seen = []
    write = console_imports._write_progress

    def write_and_look(side, job_id, done, total):
        write(side, job_id, done, total)
        other = connections.create_connection("default")
        try:
            with other.cursor() as cursor:
                cursor.execute("SELECT done FROM grading_job WHERE id = %s", [job_id])
                seen.append(cursor.fetchone()[0])
                cursor.execute("SELECT count(*) FROM grading_solution")
                seen.append(("solutions", cursor.fetchone()[0]))
        finally:
            other.close()

    monkeypatch.setattr(console_imports, "_write_progress", write_and_look)

    console_imports.outputs_job_work(job, tmp_path, lambda done, total: None)

    total = Solution.objects.count()
    dones = [value for value in seen if isinstance(value, int)]
    assert dones == list(range(total + 1))  # every step, seen while the import ran
    assert {value for value in seen if isinstance(value, tuple)} == {("solutions", 0)}


def test_a_zip_of_submission_files_imports_each_by_its_shape(client, oru):
    files = {
        "outputs/heron.csv": (OUTPUTS / "heron.csv").read_bytes(),
        "outputs/raw.jsonl": (OUTPUTS / "raw.jsonl").read_bytes(),
    }
    expected = command_output(
        "import_outputs",
        "--contest",
        "oru30",
        "--dry-run",
        str(OUTPUTS / "heron.csv"),
        str(OUTPUTS / "raw.jsonl"),
    )

    preview = client.post(url("import_outputs", "oru30"), {"file": zipped(files)})

    assert summary_of(preview) == expected
    client.post(url("import_confirm", "oru30"), {"token": token_of(preview)})
    jobs.job_run(job_id=Job.objects.get().pk, worker_id="test")
    assert Paper.objects.filter(contest=oru).count() == 3


def test_a_mac_zip_s_resource_files_are_left_out(client, oru):
    files = {
        str(path.relative_to(RECORDS.parent)): path.read_bytes()
        for path in RECORDS.rglob("*")
        if path.is_file()
    }
    files["__MACOSX/records/04_team-kestrel/._predictions.json"] = b"\x00\x05\x16\x07"
    files["records/.DS_Store"] = b"\x00\x00\x00\x01Bud1"

    preview = client.post(url("import_outputs", "oru30"), {"file": zipped(files)})

    assert page_errors(preview) == []
    assert summary_of(preview).startswith("Dry run, nothing written. Contest “oru30”: 2 papers")


def test_a_zip_holding_a_symbolic_link_is_refused(client, oru, folders):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        link = zipfile.ZipInfo("records/07_x/predictions.json")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/passwd")

    response = client.post(
        url("import_outputs", "oru30"), {"file": named(buffer.getvalue(), "records.zip")}
    )

    assert page_errors(response) == [
        "records.zip: “records/07_x/predictions.json” is a symbolic link; such a zip is refused."
    ]
    assert staged_folders(folders) == []


def test_the_outputs_import_page_says_ai_in_capitals(client, organizer):
    make_contest("caps", problems=1, papers=1)
    client.force_login(organizer)
    page = client.get(reverse("console:import_outputs", args=["caps"])).content.decode()
    assert re.findall(r"<h1>(.*?)</h1>", page) == ["Import AI outputs into Contest caps"]
