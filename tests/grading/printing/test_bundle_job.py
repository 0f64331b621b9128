"""A bundle of more papers than a request should render (PRINT_BUNDLE_IN_REQUEST) is made by a
background job: the reader is sent to the job's page, which follows its progress and offers the
PDF to that reader alone; a small bundle, or one already rendered, stays in the request."""

import re
import subprocess
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from grading.models import Job
from tests.grading.jobs.test_jobs import IMMEDIATE


@pytest.fixture(autouse=True)
def folders(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"
    settings.CACHE_DIR = tmp_path / "cache"
    settings.TASKS = IMMEDIATE
    settings.PRINT_BUNDLE_IN_REQUEST = 2
    return tmp_path


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _footer_labels(data: bytes, tmp_path: Path) -> list[str]:
    path = tmp_path / "read.pdf"
    path.write_bytes(data)
    text = subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    return re.findall(r"(\w{4}) · page 1 of", text)


def _labels(contest, number=1) -> list[str]:
    return sorted(contest.problems.get(number=number).paper_labels.values_list("label", flat=True))


def _ask(client, contest, django_capture_on_commit_callbacks, query=""):
    with django_capture_on_commit_callbacks(execute=True):
        return client.get(reverse("problem_pdf_bundle", args=[contest.slug, 1]) + query)


def test_a_jurors_large_bundle_becomes_a_job_that_only_that_juror_follows_and_downloads(
    contest,
    juror,
    other_juror,
    outside_juror,
    chair,
    organizer,
    tmp_path,
    django_capture_on_commit_callbacks,
):
    response = _ask(_client(juror), contest, django_capture_on_commit_callbacks, "?criteria=1")
    job = Job.objects.get(kind=Job.Kind.BUNDLE)
    assert (response.status_code, response["Location"]) == (
        302,
        reverse("job", args=[contest.slug, job.pk]),
    )
    assert (job.requested_by, job.problem.number, job.with_criteria) == (juror, 1, True)
    assert (job.state, job.done, job.total) == (Job.State.DONE, 3, 3)

    urls = [
        reverse(name, args=[contest.slug, job.pk])
        for name in ("job", "job_progress", "job_download")
    ]
    page = _client(juror).get(urls[0])
    assert page.status_code == 200
    assert page.content.decode().count("Download the printouts (PDF)") == 1
    download = _client(juror).get(urls[2])
    assert (download.status_code, download["Content-Disposition"]) == (
        200,
        'attachment; filename="test-p1-my-papers-with-marking-pages.pdf"',
    )
    data = b"".join(download.streaming_content)
    assert _footer_labels(data, tmp_path) == _labels(contest)

    # Another juror of the same group, a juror of another group, the chair and the organizer:
    # the juror's bundle is the juror's, and the job's pages are not there for them.
    others = {
        user.username: [_client(user).get(url).status_code for url in urls]
        for user in (other_juror, outside_juror, chair, organizer)
    }
    assert others == {name: [404, 404, 404] for name in ("bob", "charlie", "chen", "olga")}
    anonymous = [Client().get(url).status_code for url in urls]
    assert anonymous == [302, 302, 302]
    # Nor is it listed on the contest's jobs page, which is the chair's.
    jobs_page = _client(chair).get(reverse("jobs", args=[contest.slug])).content.decode()
    assert jobs_page.count(urls[0]) == 0


def test_once_made_the_large_bundle_is_served_from_the_cache_in_the_request(
    contest, juror, tmp_path, django_capture_on_commit_callbacks
):
    client = _client(juror)
    first = _ask(client, contest, django_capture_on_commit_callbacks)
    again = _ask(client, contest, django_capture_on_commit_callbacks)
    assert (first.status_code, again.status_code, again["Content-Type"]) == (
        302,
        200,
        "application/pdf",
    )
    assert Job.objects.filter(kind=Job.Kind.BUNDLE).count() == 1
    assert _footer_labels(again.content, tmp_path) == _labels(contest)


def test_asking_again_while_the_job_waits_gives_the_same_job_and_a_small_bundle_stays_in_the_request(
    settings, contest, juror, other_juror, tmp_path
):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    client = _client(juror)
    url = reverse("problem_pdf_bundle", args=[contest.slug, 1])
    locations = [client.get(url)["Location"] for _ in range(2)]
    (job,) = Job.objects.filter(kind=Job.Kind.BUNDLE)
    assert (locations, job.state) == ([reverse("job", args=[contest.slug, job.pk])] * 2, "queued")

    # bob has only two of the papers: within PRINT_BUNDLE_IN_REQUEST, printed at once.
    problem = contest.problems.get(number=1)
    other_juror.assignments.filter(problem=problem).order_by("pk").first().delete()
    small = _client(other_juror).get(url)
    assert (small.status_code, small["Content-Type"]) == (200, "application/pdf")
    assert len(_footer_labels(small.content, tmp_path)) == 2
    assert Job.objects.filter(kind=Job.Kind.BUNDLE).count() == 1


def test_a_juror_taken_out_of_the_group_can_no_longer_download_their_bundle(
    contest, juror, django_capture_on_commit_callbacks
):
    _ask(_client(juror), contest, django_capture_on_commit_callbacks)
    job = Job.objects.get(kind=Job.Kind.BUNDLE)
    problem = contest.problems.get(number=1)
    problem.group.jurors.remove(juror)
    juror.assignments.filter(problem=problem).delete()
    response = _client(juror).get(reverse("job_download", args=[contest.slug, job.pk]))
    assert response.status_code == 404


def test_a_bundle_made_for_the_chair_holds_every_paper(
    contest, chair, tmp_path, django_capture_on_commit_callbacks
):
    response = _ask(_client(chair), contest, django_capture_on_commit_callbacks)
    job = Job.objects.get(kind=Job.Kind.BUNDLE)
    assert response.status_code == 302
    download = _client(chair).get(reverse("job_download", args=[contest.slug, job.pk]))
    assert download["Content-Disposition"] == 'attachment; filename="test-p1-all-papers.pdf"'
    assert _footer_labels(b"".join(download.streaming_content), tmp_path) == _labels(contest)
