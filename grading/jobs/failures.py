"""What the person who asked reads when their job failed (`grading.jobs.running.job_run`): the
refusal's own sentences, or a sentence naming an unexpected error; and a refusal that comes with
a report."""

from pathlib import Path

from django.core.exceptions import ValidationError

from grading.models import Job


class ReportedFailure(ValidationError):
    """A job's refusal that comes with a report (an import's every problem): the job fails with
    the sentence, and its report is downloaded as a done job's file is, by those who may."""

    def __init__(self, message: str, *, report: Path):
        super().__init__(message)
        self.report = report


def _in_sentence(title: str) -> str:
    """A kind's title inside a sentence: its first letter lowered, acronyms ("AI") kept."""
    return title[:1].lower() + title[1:]


def failure_sentence(job: Job, error: BaseException) -> str:
    """What the person who asked reads when their job failed."""
    if isinstance(error, ValidationError):
        return " ".join(error.messages)
    return (
        f"The {_in_sentence(job.get_kind_display())} stopped on an unexpected error "
        f"({type(error).__name__}: {error}). Retry; if it fails again, the task worker's log "
        "has the details."
    )
