"""Who downloads a job's file: those who may start its kind, under the rule for what the file
holds now (`grading.jobs.running` makes the files)."""

from grading.jobs.running import may_start
from grading.models import Job
from grading.rules import access


def may_download(user, job: Job) -> bool:
    """A job's file is for those who may start its kind (the backup and an import's report
    name the AI systems, which the chair may not know before the contest is final), and
    obeys the rule for what it holds now, not when it was made: a results export that names
    the systems needs the identities rule at download time (the contest may have been
    reopened since). A reader's bundle is its requester's alone."""
    if job.kind == Job.Kind.BUNDLE:
        return access.may_fetch_bundle_job(user, job)
    if not may_start(user, job.kind):
        return False
    return not job.names_identities or access.may_see_identities(user, job.contest)


def download_refusal(job: Job) -> str:
    """Why `may_download` said no, as a sentence."""
    if job.kind in (Job.Kind.RESULTS, Job.Kind.JURY_EVALUATIONS):
        return (
            "This export names the AI systems, and the contest is not final now: it is the "
            "organizer's until the contest is final again. Export the results anew."
        )
    return "This job's file names the AI systems: it is the organizer's."
