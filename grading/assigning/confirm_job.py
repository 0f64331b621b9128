"""The confirmation of an assignment as a background job (`Job.Kind.ASSIGNMENT_CONFIRM`, run by
`grading.jobs`): saving a plan checks it again against the contest and makes every juror's
sheet, seconds to half a minute at a real olympiad's size, longer than a request should wait.

A job of its own rather than a second phase of the preview's: a done job stays done
(`job_run` leaves it as it is, its file is the plan), so a kind of its own keeps the shared
start, progress, failure and retry unchanged, and the preview's plan stays what was confirmed.
Its `params` name the preview (`preview`, with the counts and slack it was asked with), or hold
the counts alone (the `assign_jurors` command's way: planned and saved at once); its file is
the sentence of what was saved. The work saves through `assignments_create`, which checks
everything again against the contest as it is then and writes all or nothing; a refusal fails
the job with its sentences. A preview's plan is saved once: a second confirmation while the
first waits or runs is that same job, and one after it is done is refused."""

from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from grading.assigning.assignments import assignments_create
from grading.assigning.preview_job import (
    params_counts,
    params_slack,
    preview_params,
    preview_summary,
)
from grading.jobs import running as jobs
from grading.models import Job
from grading.rules import access
from grading.rules.phase import refuse_if_final
from grading.rules.refusals import WrongState
from rubrics.models import Contest

SAVED_SUFFIX = "-assignment-saved.txt"
WHAT = "its papers' assignments to jurors"


def _saved_already(preview: Job, *, but: Job | None = None) -> bool:
    done = Job.objects.filter(
        kind=Job.Kind.ASSIGNMENT_CONFIRM,
        contest=preview.contest,
        state=Job.State.DONE,
        params__preview=preview.pk,
    )
    return done.exclude(pk=but.pk).exists() if but is not None else done.exists()


SAVED_ALREADY = (
    "This preview was saved already; preview the assignment again to assign what is left."
)


@transaction.atomic
def assignment_confirm_start(
    *,
    contest: Contest,
    user,
    preview: Job | None = None,
    counts: dict[int, int] | None = None,
    load_slack: int = 0,
) -> Job:
    """Queue the saving of the preview job `preview`'s plan (or, without one, of `counts` jurors
    per paper by problem number with `load_slack`, planned and saved at once). The same
    confirmation still waiting or running is returned instead of a second; a preview already
    saved, one not finished and a final contest are refused, as is anyone but the organizer."""
    access.require(access.may_run_contest(user), jobs.START_REFUSALS[Job.Kind.ASSIGNMENT_CONFIRM])
    refuse_if_final(contest, what=WHAT)
    if preview is None:
        params = preview_params(counts=counts or {}, load_slack=load_slack)
    else:
        # Held until the commit: two confirmations of one preview are decided one after the
        # other (the row lock; on SQLite every write transaction is).
        preview = Job.objects.select_for_update().get(pk=preview.pk)
        _plan(preview)
        if _saved_already(preview):
            raise WrongState(SAVED_ALREADY)
        params = {"preview": preview.pk, **preview.params}
    return jobs.job_start(
        kind=Job.Kind.ASSIGNMENT_CONFIRM, contest=contest, user=user, params=params
    )


def _plan(preview: Job):
    """The plan the preview made, or why there is none to save."""
    summary = preview_summary(preview)
    if summary is None:
        if preview.state == Job.State.DONE:
            raise ValidationError(
                "This preview's plan is no longer on the server; preview the assignment again."
            )
        raise WrongState(
            "This preview is not finished: wait until it is, or preview the assignment again."
        )
    return summary


def assignment_confirm_work(job: Job, scratch: Path, progress) -> Path:
    """The work of an ASSIGNMENT_CONFIRM job: the plan saved by `assignments_create`, which
    checks it again and writes all or nothing, progress by problem saved (without a preview:
    by problem solved, then saved); its file the sentence of what was saved. A refusal (the
    contest changed, or is final now) fails the job with its sentences, nothing written."""
    preview_pk = job.params.get("preview")
    if preview_pk is None:
        summary = assignments_create(
            contest=job.contest,
            overrides=params_counts(job),
            load_slack=params_slack(job),
            progress=progress,
        )
    else:
        with transaction.atomic():
            preview = (
                Job.objects.select_for_update()
                .filter(pk=preview_pk, contest=job.contest, kind=Job.Kind.ASSIGNMENT)
                .first()
            )
            if preview is None:
                raise ValidationError("This preview is no longer on record; preview again.")
            if _saved_already(preview, but=job):
                raise WrongState(SAVED_ALREADY)
            summary = assignments_create(
                contest=job.contest,
                overrides=params_counts(job),
                load_slack=params_slack(job),
                plan=_plan(preview),
                progress=progress,
            )
    path = scratch / f"{job.contest.slug}{SAVED_SUFFIX}"
    path.write_text(f"{summary}\n", encoding="utf-8")
    return path


def confirm_job(contest: Contest, pk: int) -> Job | None:
    """The contest's assignment confirmation `pk`, if there is one. One query."""
    return (
        Job.objects.filter(pk=pk, contest=contest, kind=Job.Kind.ASSIGNMENT_CONFIRM)
        .select_related("contest", "requested_by")
        .first()
    )


def confirm_preview(job: Job) -> Job | None:
    """The preview a confirmation saves, if it names one still on record."""
    pk = job.params.get("preview")
    if pk is None:
        return None
    return Job.objects.filter(pk=pk, contest=job.contest, kind=Job.Kind.ASSIGNMENT).first()
