"""The confirmation of an assignment as a background job: started by the organizer alone, never
for a final contest; nothing is written until the worker runs it, which saves through
`assignments_create` exactly what the save inside the request saved, reports progress by
problem (visible while its transaction is open), and writes nothing when the contest changed
meanwhile; one preview's plan is saved once."""

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from grading.assigning import assignments as assigning
from grading.assigning import confirm_job, preview_job
from grading.assigning.assignments import assignments_create
from grading.jobs import running as jobs
from grading.jobs.progress_note import PROGRESS_NOTE
from grading.models import Assignment, GradingGroup, Job, Mark, Sheet
from grading.rules import roles
from grading.rules.refusals import ContestFinal, NotAllowed, WrongState
from tests.factories import make_contest, make_user


@pytest.fixture(autouse=True)
def jobs_dir(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"


@pytest.fixture
def jurors(db):
    return [make_user(name, roles.JUROR) for name in ("ann", "ben", "cat", "dov")]


@pytest.fixture
def contest(db, jurors):
    contest = make_contest("iol", problems=2, papers=5)
    for problem in contest.problems.all():
        GradingGroup.objects.create(problem=problem).jurors.add(*jurors)
    return contest


def _previewed(contest, organizer, counts=None) -> Job:
    job = preview_job.assignment_preview_start(
        contest=contest, user=organizer, counts=counts or {1: 2, 2: 3}, load_slack=0
    )
    jobs.job_run(job_id=job.pk, worker_id="")
    job.refresh_from_db()
    return job


def _written() -> tuple[list, int, list]:
    """Every assignment (problem, paper, juror), the marks and the sheets."""
    return (
        sorted(Assignment.objects.values_list("problem__number", "paper_id", "juror__username")),
        Mark.objects.count(),
        sorted(Sheet.objects.values_list("problem__number", "juror__username")),
    )


def _saved_in_the_request(**kwargs) -> tuple[str, tuple]:
    """What the synchronous save wrote (and said), rolled back."""
    with transaction.atomic():
        summary = assignments_create(**kwargs)
        written = _written()
        transaction.set_rollback(True)
    assert Assignment.objects.count() == 0
    return str(summary), written


def test_confirming_queues_a_job_that_saves_the_plan_as_the_request_did(contest, organizer):
    preview = _previewed(contest, organizer)
    sentence, written = _saved_in_the_request(
        contest=contest,
        overrides={1: 2, 2: 3},
        plan=preview_job.preview_summary(preview),
    )
    confirm = confirm_job.assignment_confirm_start(contest=contest, user=organizer, preview=preview)
    assert (confirm.kind, confirm.state) == (Job.Kind.ASSIGNMENT_CONFIRM, Job.State.QUEUED)
    assert confirm.params == {"preview": preview.pk, **preview.params}
    assert Assignment.objects.count() == 0
    jobs.job_run(job_id=confirm.pk, worker_id="")
    confirm.refresh_from_db()
    # Progress by problem saved, the last write the row's.
    assert (confirm.state, confirm.done, confirm.total) == (Job.State.DONE, 2, 2)
    assert _written() == written
    assert sentence == "25 assignments created in 2 problems of iol (0 already there)."
    assert jobs.job_status(confirm, alive=set()).sentence == sentence
    # Its file pruned, the assignments stand.
    jobs.job_file(confirm).unlink()
    assert jobs.job_status(confirm, alive=set()).sentence == (
        "Saved; its record is no longer on the server."
    )


def test_confirming_the_counts_alone_solves_then_saves_as_the_request_did(contest, organizer):
    sentence, written = _saved_in_the_request(contest=contest, overrides={1: 2, 2: 3})
    confirm = confirm_job.assignment_confirm_start(
        contest=contest, user=organizer, counts={1: 2, 2: 3}
    )
    assert Assignment.objects.count() == 0
    jobs.job_run(job_id=confirm.pk, worker_id="")
    confirm.refresh_from_db()
    # Each problem solved, then each saved.
    assert (confirm.state, confirm.done, confirm.total) == (Job.State.DONE, 4, 4)
    assert _written() == written
    assert jobs.job_status(confirm, alive=set()).sentence == sentence


def test_progress_made_inside_the_saving_transaction_is_seen_while_it_runs(
    contest, organizer, monkeypatch
):
    """The service saves all or nothing in one transaction, in which a write of the job's row
    would be seen by the pages only at its commit: the progress is read from the job's note."""
    confirm = confirm_job.assignment_confirm_start(
        contest=contest, user=organizer, preview=_previewed(contest, organizer)
    )
    seen = []
    sheet_get_or_create = assigning.sheet_get_or_create

    def watched(*, juror, problem):
        job = Job.objects.get(pk=confirm.pk)
        status = jobs.job_status(job, alive={"w"})
        seen.append((problem.number, status.job.done, status.job.total, status.sentence))
        return sheet_get_or_create(juror=juror, problem=problem)

    monkeypatch.setattr(assigning, "sheet_get_or_create", watched)
    jobs.job_run(job_id=confirm.pk, worker_id="w")
    # While P2's sheets are made, P1 is saved.
    assert seen[-1] == (2, 1, 2, "1 of 2 problems saved.")
    assert not (jobs.job_folder(confirm) / PROGRESS_NOTE).exists()


def test_a_juror_gone_between_the_preview_and_the_job_fails_it_writing_nothing(
    contest, organizer, jurors
):
    confirm = confirm_job.assignment_confirm_start(
        contest=contest, user=organizer, preview=_previewed(contest, organizer)
    )
    jurors[3].is_active = False
    jurors[3].save(update_fields=["is_active"])
    with pytest.raises(ValidationError):
        jobs.job_run(job_id=confirm.pk, worker_id="")
    confirm.refresh_from_db()
    assert confirm.state == Job.State.FAILED
    assert confirm.error.startswith("The assignment changed since its preview: P1: dov is no ")
    assert _written() == ([], 0, [])


def test_a_contest_finalized_before_the_job_runs_fails_it_writing_nothing(contest, organizer):
    confirm = confirm_job.assignment_confirm_start(
        contest=contest, user=organizer, counts={1: 2, 2: 2}
    )
    contest.state = "final"
    contest.save(update_fields=["state"])
    with pytest.raises(ContestFinal):
        jobs.job_run(job_id=confirm.pk, worker_id="")
    confirm.refresh_from_db()
    assert (confirm.state, confirm.error) == (
        Job.State.FAILED,
        "Contest iol is final: its papers' assignments to jurors are read-only. An organizer "
        "can reopen it, with a reason, from its results page.",
    )
    assert _written() == ([], 0, [])


def test_one_previews_plan_is_saved_once(contest, organizer):
    preview = _previewed(contest, organizer)
    first = confirm_job.assignment_confirm_start(contest=contest, user=organizer, preview=preview)
    # Confirmed twice while it waits: the same job.
    again = confirm_job.assignment_confirm_start(contest=contest, user=organizer, preview=preview)
    assert again.pk == first.pk
    # A second job of the same plan slipped in (two workers, two confirmations at once)...
    twin = Job.objects.create(
        kind=Job.Kind.ASSIGNMENT_CONFIRM, contest=contest, params=first.params
    )
    jobs.job_run(job_id=first.pk, worker_id="")
    written = _written()
    # ...writes nothing, and says why.
    with pytest.raises(WrongState):
        jobs.job_run(job_id=twin.pk, worker_id="")
    twin.refresh_from_db()
    assert twin.error == confirm_job.SAVED_ALREADY
    assert _written() == written
    # Once saved, confirming it again is refused at once.
    with pytest.raises(WrongState, match="saved already"):
        confirm_job.assignment_confirm_start(contest=contest, user=organizer, preview=preview)
    assert Job.objects.filter(kind=Job.Kind.ASSIGNMENT_CONFIRM).count() == 2


def test_only_the_organizer_confirms_and_never_for_a_final_contest(contest, organizer, chair):
    preview = _previewed(contest, organizer)
    with pytest.raises(NotAllowed):
        confirm_job.assignment_confirm_start(contest=contest, user=chair, preview=preview)
    with pytest.raises(NotAllowed):
        confirm_job.assignment_confirm_start(contest=contest, user=chair, counts={1: 2, 2: 2})
    contest.state = "final"
    contest.save(update_fields=["state"])
    with pytest.raises(ContestFinal):
        confirm_job.assignment_confirm_start(contest=contest, user=organizer, preview=preview)
    assert not Job.objects.filter(kind=Job.Kind.ASSIGNMENT_CONFIRM).exists()
