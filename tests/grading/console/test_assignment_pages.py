"""Grading groups and assignments in the console: the counts per problem and the load slack,
the assignment previewed by a background job followed on the page, then saved by the service
`assign_jurors` uses by a confirmation job the page follows, with its refusals."""

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.assigning.assignments import LATE_RULE
from grading.intake.labels import paper_labels_ensure
from grading.jobs import running as jobs
from grading.jobs.progress_note import PROGRESS_NOTE
from grading.models import Assignment, GradingGroup, Job, Mark, Paper, Sheet
from grading.rules import roles
from tests.factories import make_contest, make_user
from tests.grading.scenario import submit


@pytest.fixture
def client(organizer):
    client = Client()
    client.force_login(organizer)
    return client


@pytest.fixture
def jurors(db):
    return [make_user(name, roles.JUROR) for name in ("ann", "ben", "cat", "dov")]


@pytest.fixture
def contest(db, jurors):
    """Two problems of five papers, with no assignment yet: P1's group is ann, ben and cat;
    P2's is all four."""
    contest = make_contest("iol", problems=2, papers=5)
    p1, p2 = contest.problems.order_by("number")
    GradingGroup.objects.create(problem=p1).jurors.add(*jurors[:3])
    GradingGroup.objects.create(problem=p2).jurors.add(*jurors)
    return contest


def _table(response, key: str) -> list[tuple]:
    rows = response.context[key] if key == "current" else response.context["preview"]["rows"]
    return [(username, counts, total) for username, counts, total in rows]


@pytest.fixture(autouse=True)
def jobs_dir(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"


def _preview(client, slug: str, data: dict, *, fails: bool = False):
    """Post the counts, run the preview job the post started as the worker would, and get the
    page that follows it."""
    response = client.post(reverse("console:assignments", args=[slug]), data)
    assert response.status_code == 302
    job = Job.objects.get(kind=Job.Kind.ASSIGNMENT, contest__slug=slug, state=Job.State.QUEUED)
    assert response["Location"] == (
        f"{reverse('console:assignments', args=[slug])}?job={job.pk}#preview"
    )
    if fails:
        with pytest.raises(ValidationError):
            jobs.job_run(job_id=job.pk, worker_id="")
    else:
        jobs.job_run(job_id=job.pk, worker_id="")
    return client.get(response["Location"].split("#")[0])


def _confirm(client, slug: str, data: dict, *, fails: bool = False):
    """Post the confirmation, which answers at once writing nothing, run the job it queued as
    the worker would, and get the page that follows it: once saved, the page the section's
    poll sends the browser to, with what was saved as its message."""
    written = Assignment.objects.count()
    response = client.post(reverse("console:assignments_confirm", args=[slug]), data)
    assert response.status_code == 302
    job = Job.objects.get(
        kind=Job.Kind.ASSIGNMENT_CONFIRM, contest__slug=slug, state=Job.State.QUEUED
    )
    page = reverse("console:assignments", args=[slug])
    assert response["Location"] == f"{page}?confirm={job.pk}#confirmation"
    assert Assignment.objects.count() == written
    if fails:
        with pytest.raises(ValidationError):
            jobs.job_run(job_id=job.pk, worker_id="")
        return client.get(response["Location"].split("#")[0])
    jobs.job_run(job_id=job.pk, worker_id="")
    polled = client.get(
        reverse("console:assignments_confirmation", args=[slug, job.pk]),
        headers={"HX-Request": "true"},
    )
    assert (polled.status_code, polled["HX-Redirect"]) == (204, page)
    return client.get(polled["HX-Redirect"])


def test_the_preview_is_a_job_that_shows_each_jurors_load_and_writes_nothing(client, contest):
    url = reverse("console:assignments", args=["iol"])
    page = client.get(url)
    assert [(p.number, group) for p, group, _ in page.context["problems"]] == [
        (1, ["ann", "ben", "cat"]),
        (2, ["ann", "ben", "cat", "dov"]),
    ]
    client.post(url, {"p1": "3", "p2": "2", "load_slack": "1"})
    job = Job.objects.get(kind=Job.Kind.ASSIGNMENT)
    assert job.params == {"counts": {"1": 3, "2": 2}, "load_slack": 1}
    # Until the worker runs it, the page follows its progress.
    waiting = client.get(f"{url}?job={job.pk}")
    assert (waiting.context["job_status"].state, waiting.context["preview"]) == ("queued", None)
    section = client.get(reverse("console:assignments_preview", args=["iol", job.pk]))
    assert 'hx-trigger="every 2s"' in section.content.decode()
    jobs.job_run(job_id=job.pk, worker_id="")
    job.refresh_from_db()
    assert (job.state, job.done, job.total) == (Job.State.DONE, 2, 2)
    response = client.get(f"{url}?job={job.pk}")
    assert response.status_code == 200
    # The counts and slack are those the preview was asked with.
    assert response.context["form"]["load_slack"].value() == 1
    # P1: five papers × 3 from a group of three; P2: five papers × 2 spread over four, the
    # extra paper going to the one with least in the whole contest (dov), then by name.
    assert _table(response, "preview") == [
        ("ann", [5, 3], 8),
        ("ben", [5, 2], 7),
        ("cat", [5, 2], 7),
        ("dov", [0, 3], 3),
    ]
    assert "25 new assignments (0 already there)." in response.content.decode()
    assert Assignment.objects.count() == 0


def test_confirming_saves_the_previewed_assignment_with_the_jurors_sheets(client, contest):
    page = _confirm(client, "iol", {"p1": "3", "p2": "2"})
    # The counts start from what the papers have now.
    assert [field.value() for _, _, field in page.context["problems"]] == [3, 2]
    assert _table(page, "current") == [
        ("ann", [5, 3], 8),
        ("ben", [5, 2], 7),
        ("cat", [5, 2], 7),
        ("dov", [0, 3], 3),
    ]
    assert [str(m) for m in page.context["messages"]] == [
        "25 assignments created in 2 problems of iol (0 already there)."
    ]
    assert sorted(Sheet.objects.values_list("juror__username", "problem__number")) == [
        ("ann", 1),
        ("ann", 2),
        ("ben", 1),
        ("ben", 2),
        ("cat", 1),
        ("cat", 2),
        ("dov", 2),
    ]
    # Saving again adds nothing: existing assignments are kept.
    again = _confirm(client, "iol", {"p1": "3", "p2": "2"})
    assert [str(m) for m in again.context["messages"]] == [
        "0 assignments created in 2 problems of iol (25 already there)."
    ]
    assert Assignment.objects.count() == 25


def test_too_few_jurors_in_a_group_is_refused_with_its_sentence(client, contest):
    response = _preview(client, "iol", {"p1": "4", "p2": "2"}, fails=True)
    status = response.context["job_status"]
    assert (status.state, status.sentence) == (
        "failed",
        "Problem 1 needs 4 jurors per paper, but its grading group has only 3.",
    )
    bad = client.post(reverse("console:assignments", args=["iol"]), {"p1": "0", "p2": ""})
    assert (bad.status_code, bad.context["form"].errors) == (
        422,
        {
            "p1": ["P1: at least 1 juror grades each paper."],
            "p2": ["P2: give the number of jurors per paper."],
        },
    )


def test_a_late_paper_is_not_given_to_a_juror_who_has_submitted(client, contest, jurors):
    _confirm(client, "iol", {"p1": "3", "p2": "2"})
    ann = jurors[0]
    p1 = contest.problems.get(number=1)
    Mark.objects.filter(sheet__juror=ann, sheet__problem=p1).update(points=1)
    submit(ann, p1)
    Paper.objects.create(contest=contest, identity="Late system")
    paper_labels_ensure(contest=contest)
    # Said by the job the confirmation started, which writes nothing.
    response = _confirm(client, "iol", {"p1": "3", "p2": "2"}, fails=True)
    status = response.context["confirm_status"]
    assert (status.state, status.sentence) == (
        "failed",
        "Problem 1: papers need more jurors than its group has left who have not "
        f"submitted their sheet (ann has); {LATE_RULE} Add a juror to the problem's "
        "grading group first.",
    )
    assert "The assignment was not saved" in response.content.decode()
    assert Assignment.objects.count() == 25


def test_the_organizer_sets_the_grading_groups_by_ticking_problems(client, contest, jurors):
    url = reverse("console:groups_save", args=["iol"])
    ann, ben, cat, dov = (juror.pk for juror in jurors)
    # dov joins P1, cat leaves P2; the others stay as they are.
    response = client.post(
        url,
        {f"j{ann}": ["1", "2"], f"j{ben}": ["1", "2"], f"j{cat}": ["1"], f"j{dov}": ["1", "2"]},
    )
    assert response.status_code == 302
    assert {
        group.problem.number: sorted(j.username for j in group.jurors.all())
        for group in GradingGroup.objects.filter(problem__contest=contest)
    } == {1: ["ann", "ben", "cat", "dov"], 2: ["ann", "ben", "dov"]}
    page = client.get(reverse("console:assignments", args=["iol"]))
    assert [(p.number, group) for p, group, _ in page.context["problems"]] == [
        (1, ["ann", "ben", "cat", "dov"]),
        (2, ["ann", "ben", "dov"]),
    ]


def test_a_juror_with_papers_stays_in_the_group_and_nothing_changes(client, contest, jurors):
    _confirm(client, "iol", {"p1": "3", "p2": "2"})
    ann, ben, cat, dov = (juror.pk for juror in jurors)
    # Everyone leaves P1 (they have its papers) while dov joins it: all refused, none written.
    response = client.post(
        reverse("console:groups_save", args=["iol"]),
        {f"j{ann}": ["2"], f"j{ben}": ["2"], f"j{cat}": ["2"], f"j{dov}": ["1", "2"]},
    )
    assert (response.status_code, response.context["groups_form"].non_field_errors()) == (
        422,
        [
            f"{name} has papers of P1 in Contest iol assigned; they stay in its grading group."
            for name in ("ann", "ben", "cat")
        ],
    )
    assert sorted(
        GradingGroup.objects.get(problem__number=1).jurors.values_list("username", flat=True)
    ) == ["ann", "ben", "cat"]


@pytest.mark.parametrize("papers", [2, 25])
def test_the_assignments_page_runs_a_fixed_number_of_queries(client, jurors, papers):
    contest = make_contest(f"q{papers}", problems=2, papers=papers)
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    _confirm(client, contest.slug, {"p1": 2, "p2": 3})
    url = reverse("console:assignments", args=[contest.slug])
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    # 4 of them for the papers in conflict (the declared conflicts one) and the jurors past
    # their capacity.
    assert len(queries) == 17


@pytest.mark.parametrize("papers", [2, 25])
def test_the_page_with_a_preview_runs_a_fixed_number_of_queries(client, jurors, papers):
    contest = make_contest(f"q{papers}", problems=2, papers=papers)
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    page = _preview(client, contest.slug, {"p1": 2, "p2": 3})
    assert page.context["preview"] is not None
    url = page.request["PATH_INFO"] + "?" + page.request["QUERY_STRING"]
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    # 4 of them for the papers in conflict (the declared conflicts one) and the jurors past
    # their capacity.
    assert len(queries) == 20


def test_confirming_a_preview_saves_its_plan(client, contest):
    page = _preview(client, "iol", {"p1": "3", "p2": "2"})
    job = page.context["job_status"].job
    assert Assignment.objects.count() == 0
    page = _confirm(client, "iol", {"job": job.pk})
    assert [str(m) for m in page.context["messages"]] == [
        "25 assignments created in 2 problems of iol (0 already there)."
    ]
    assert Assignment.objects.count() == 25


def test_confirming_a_preview_of_another_contest_or_kind_is_a_404(client, contest):
    other = Job.objects.create(kind=Job.Kind.PRINTOUTS, contest=contest)
    url = reverse("console:assignments_confirm", args=["iol"])
    assert client.post(url, {"job": other.pk}).status_code == 404
    assert client.get(reverse("console:assignments", args=["iol"]) + "?job=x").status_code == 404


def test_confirming_a_preview_the_contest_has_outgrown_says_what_changed(client, contest, jurors):
    page = _preview(client, "iol", {"p1": "3", "p2": "2"})
    job = page.context["job_status"].job
    # dov, who had P2 papers in the plan, is taken out of the jury before the confirmation.
    jurors[3].is_active = False
    jurors[3].save(update_fields=["is_active"])
    response = _confirm(client, "iol", {"job": job.pk}, fails=True)
    status = response.context["confirm_status"]
    assert (status.state, status.sentence) == (
        "failed",
        "The assignment changed since its preview: P2: dov is no longer an active juror "
        "of its group; preview it again.",
    )
    # The page says it on the confirmation's section, keeps the counts the preview had, and
    # nothing is written.
    assert 'id="confirmation"' in response.content.decode()
    assert response.context["form"]["p1"].value() == 3
    assert Assignment.objects.count() == 0


def test_the_confirmation_answers_at_once_and_the_page_follows_its_job(client, contest):
    job = _preview(client, "iol", {"p1": "3", "p2": "2"}).context["job_status"].job
    url = reverse("console:assignments_confirm", args=["iol"])
    response = client.post(url, {"job": job.pk})
    confirm = Job.objects.get(kind=Job.Kind.ASSIGNMENT_CONFIRM)
    assert (confirm.state, Assignment.objects.count()) == (Job.State.QUEUED, 0)
    # Confirmed again while it waits: the same job, followed by the same page.
    assert client.post(url, {"job": job.pk})["Location"] == response["Location"]
    page = client.get(response["Location"].split("#")[0])
    html = page.content.decode()
    section = reverse("console:assignments_confirmation", args=["iol", confirm.pk])
    assert f'hx-get="{section}" hx-trigger="every 2s"' in html
    assert "Saving the assignment" in html
    assert page.context["confirm_status"].sentence.startswith("Waiting for the task worker")
    assert page.context["form"]["p1"].value() == 3
    # While it runs, the section says how many problems are saved (the job's note, inside the
    # service's transaction).
    Job.objects.filter(pk=confirm.pk).update(state=Job.State.RUNNING, worker_id="w")
    jobs.job_folder(confirm).mkdir(parents=True)
    (jobs.job_folder(confirm) / PROGRESS_NOTE).write_text("1 2", encoding="utf-8")
    polled = client.get(section, headers={"HX-Request": "true"})
    assert polled.status_code == 200
    assert polled.context["confirm_status"].job.done == 1
    assert "1 of 2" in polled.content.decode()
    Job.objects.filter(pk=confirm.pk).update(state=Job.State.QUEUED)
    (jobs.job_folder(confirm) / PROGRESS_NOTE).unlink()
    jobs.job_run(job_id=confirm.pk, worker_id="")
    # Without JavaScript, the page reloaded says what was saved, the loads as they are now.
    done = client.get(response["Location"].split("#")[0])
    assert done.context["confirm_status"].sentence == (
        "25 assignments created in 2 problems of iol (0 already there)."
    )
    assert "hx-get" not in done.content.decode().split('id="confirmation"')[1].split(">")[0]
    assert _table(done, "current")[0] == ("ann", [5, 3], 8)
    # Once saved, the same preview is not saved twice.
    again = client.post(url, {"job": job.pk})
    assert (again.status_code, again.context["form"].non_field_errors()) == (
        409,
        ["This preview was saved already; preview the assignment again to assign what is left."],
    )
    assert Assignment.objects.count() == 25


def test_a_final_contest_refuses_the_confirmation_at_once(client, contest):
    job = _preview(client, "iol", {"p1": "3", "p2": "2"}).context["job_status"].job
    contest.state = "final"
    contest.save(update_fields=["state"])
    url = reverse("console:assignments_confirm", args=["iol"])
    for data in ({"job": job.pk}, {"p1": "3", "p2": "2"}):
        response = client.post(url, data)
        assert (response.status_code, response.context["form"].non_field_errors()) == (
            403,
            [
                "Contest iol is final: its papers' assignments to jurors are read-only. An "
                "organizer can reopen it, with a reason, from its results page."
            ],
        )
    assert not Job.objects.filter(kind=Job.Kind.ASSIGNMENT_CONFIRM).exists()


def test_following_a_confirmation_of_another_kind_or_contest_is_a_404(client, contest, chair):
    preview = Job.objects.create(kind=Job.Kind.ASSIGNMENT, contest=contest)
    assert (
        client.get(
            reverse("console:assignments_confirmation", args=["iol", preview.pk])
        ).status_code
        == 404
    )
    page = reverse("console:assignments", args=["iol"])
    assert client.get(f"{page}?confirm={preview.pk}").status_code == 404
    assert client.get(f"{page}?confirm=x").status_code == 404
    other = make_contest("other", problems=1, papers=1)
    theirs = Job.objects.create(kind=Job.Kind.ASSIGNMENT_CONFIRM, contest=other)
    assert client.get(f"{page}?confirm={theirs.pk}").status_code == 404
    # The chair follows no confirmation: the console's assignments are the organizer's.
    mine = Job.objects.create(kind=Job.Kind.ASSIGNMENT_CONFIRM, contest=contest)
    chairs = Client()
    chairs.force_login(chair)
    section = reverse("console:assignments_confirmation", args=["iol", mine.pk])
    assert chairs.get(section).status_code == 404
    assert client.get(section).status_code == 200
