"""The assignment preview as a background job (`Job.Kind.ASSIGNMENT`, run by `grading.jobs`):
solving every problem takes from a second to the solver's time limit per problem, longer than a
request should wait. The job's `params` hold what it was asked with (jurors per paper by
problem, the load slack); its file is the plan, `AssignmentSummary.to_dict()` as JSON, which
the console's page shows and its confirmation saves (`confirm_job`, a job of its own) through
`assignments_create(plan=…)`, the service that checks everything again against the contest as
it is then."""

import json
from pathlib import Path

from django.db import transaction

from grading.assigning.assignments import AssignmentSummary, assignments_create
from grading.jobs import running as jobs
from grading.models import Job
from grading.rules import access
from grading.rules.phase import refuse_if_final
from rubrics.models import Contest

PLAN_SUFFIX = "-assignment-plan.json"


def preview_params(*, counts: dict[int, int], load_slack: int) -> dict:
    """A job's `params`: JSON keys are text, so problem numbers are written as text."""
    return {
        "counts": {str(number): count for number, count in sorted(counts.items())},
        "load_slack": load_slack,
    }


def params_counts(job: Job) -> dict[int, int]:
    return {int(number): count for number, count in job.params.get("counts", {}).items()}


def params_slack(job: Job) -> int:
    return int(job.params.get("load_slack", 0))


@transaction.atomic
def assignment_preview_start(
    *, contest: Contest, user, counts: dict[int, int], load_slack: int
) -> Job:
    """Queue the preview of the contest's assignment with `counts` jurors per paper by problem
    number and `load_slack`; the same preview still waiting or running is returned instead of a
    second. Refused for a final contest and for anyone but the organizer."""
    access.require(access.may_run_contest(user), jobs.START_REFUSALS[Job.Kind.ASSIGNMENT])
    refuse_if_final(contest, what="its papers' assignments to jurors")
    return jobs.job_start(
        kind=Job.Kind.ASSIGNMENT,
        contest=contest,
        user=user,
        params=preview_params(counts=counts, load_slack=load_slack),
    )


def assignment_preview_work(job: Job, scratch: Path, progress) -> Path:
    """The work of an ASSIGNMENT job: the dry run of `assignments_create` with the job's
    counts and slack, progress by problem solved; its file the plan as JSON. A refusal (no
    group, too few jurors) fails the job with its sentences."""
    summary = assignments_create(
        contest=job.contest,
        overrides=params_counts(job),
        dry_run=True,
        load_slack=params_slack(job),
        progress=progress,
    )
    path = scratch / f"{job.contest.slug}{PLAN_SUFFIX}"
    path.write_text(json.dumps(summary.to_dict(), ensure_ascii=False), encoding="utf-8")
    return path


def preview_job(contest: Contest, pk: int) -> Job | None:
    """The contest's assignment preview `pk`, if there is one. One query."""
    return (
        Job.objects.filter(pk=pk, contest=contest, kind=Job.Kind.ASSIGNMENT)
        .select_related("contest", "requested_by")
        .first()
    )


def preview_summary(job: Job) -> AssignmentSummary | None:
    """The plan a done preview made, or None while it runs (or once its file is pruned)."""
    path = jobs.job_file(job) if job.state == Job.State.DONE else None
    if path is None:
        return None
    return AssignmentSummary.from_dict(json.loads(path.read_text(encoding="utf-8")))
