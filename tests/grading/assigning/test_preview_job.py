"""The assignment preview as a background job: started by the organizer alone, never for a
final contest; its work reports progress by problem and leaves the plan as its file; a
confirmation saves that plan, once the job is done (`test_confirm_job.py`)."""

import json

import pytest

from grading.assigning import confirm_job, preview_job
from grading.jobs import running as jobs
from grading.models import Assignment, GradingGroup, Job
from grading.rules import roles
from grading.rules.refusals import ContestFinal, NotAllowed, WrongState
from tests.factories import make_contest, make_user


@pytest.fixture(autouse=True)
def jobs_dir(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"


@pytest.fixture
def contest(db):
    contest = make_contest("iol", problems=2, papers=4)
    jurors = [make_user(name, roles.JUROR) for name in ("ann", "ben", "cat")]
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    return contest


def test_only_the_organizer_starts_a_preview_and_never_for_a_final_contest(
    contest, organizer, chair
):
    with pytest.raises(NotAllowed):
        preview_job.assignment_preview_start(
            contest=contest, user=chair, counts={1: 2, 2: 2}, load_slack=0
        )
    contest.state = "final"
    contest.save(update_fields=["state"])
    with pytest.raises(ContestFinal):
        preview_job.assignment_preview_start(
            contest=contest, user=organizer, counts={1: 2, 2: 2}, load_slack=0
        )
    assert not Job.objects.exists()


def test_the_same_preview_asked_twice_is_one_job_and_other_counts_another(contest, organizer):
    start = preview_job.assignment_preview_start
    first = start(contest=contest, user=organizer, counts={1: 2, 2: 2}, load_slack=0)
    again = start(contest=contest, user=organizer, counts={1: 2, 2: 2}, load_slack=0)
    other = start(contest=contest, user=organizer, counts={1: 2, 2: 2}, load_slack=1)
    assert (again.pk == first.pk, other.pk == first.pk) == (True, False)


def test_the_job_reports_progress_by_problem_and_leaves_the_plan(contest, organizer):
    job = preview_job.assignment_preview_start(
        contest=contest, user=organizer, counts={1: 2, 2: 3}, load_slack=0
    )
    with pytest.raises(WrongState):
        confirm_job.assignment_confirm_start(contest=contest, user=organizer, preview=job)
    jobs.job_run(job_id=job.pk, worker_id="")
    job.refresh_from_db()
    assert (job.state, job.done, job.total) == (Job.State.DONE, 2, 2)
    plan = json.loads(jobs.job_file(job).read_text(encoding="utf-8"))
    summary = preview_job.preview_summary(job)
    assert summary.to_dict() == plan
    assert [problem.number for problem in summary.problems] == [1, 2]
    assert Assignment.objects.count() == 0
    status = jobs.job_status(job, alive=set())
    assert status.sentence == (
        "Solved; the preview is below, and nothing is saved until you confirm it."
    )
    confirm = confirm_job.assignment_confirm_start(contest=contest, user=organizer, preview=job)
    jobs.job_run(job_id=confirm.pk, worker_id="")
    assert Assignment.objects.count() == 4 * 2 + 4 * 3
