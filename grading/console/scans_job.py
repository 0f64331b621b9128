"""The work of an IMPORT_SCANS job (`grading.jobs.running`): the scan import on what the
console's preview staged (`console_imports`), with its progress by page read."""

from pathlib import Path

from django.utils.translation import ngettext

from grading.console.imports import _plan_lines, _SideProgress, _staged_input
from grading.intake.importers.errors import ImportProblems
from grading.intake.scans.importing import scans_import
from grading.jobs.failures import ReportedFailure
from grading.models import Job


def scans_job_work(job: Job, scratch: Path, progress) -> Path:
    """The work of an IMPORT_SCANS job: the scan import on the PDFs (and page map) in the job's
    input folder, as the preview staged them, progress by page read; its report (the
    organizer's alone: it names contestants by their codes) is the file it makes."""
    input_folder, staged = _staged_input(job, "scans")
    files = [input_folder / path for path in staged.paths]
    side = _SideProgress(job, progress)
    try:
        summary = scans_import(
            contest=job.contest,
            files=files[:-1] if staged.page_map else files,
            page_map=files[-1] if staged.page_map else None,
            actor=job.requested_by,
            progress=side.counted,
        )
    except ImportProblems as error:
        # The job's page is the chair's to read as well, and the sentences name contestants'
        # codes: the page says how many, the report (the organizer's alone) says which. A large
        # upload's preview read no covers, so this is where their problems are first found.
        count = len(error.messages)
        report = scratch / f"{job.contest.slug}-scans-problems.txt"
        report.write_text("\n".join(error.messages) + "\n", encoding="utf-8")
        raise ReportedFailure(
            f"Nothing was imported: the scans have "
            f"{ngettext('%d problem', '%d problems', count) % count}, "
            "each a sentence in the import's report. Fix them and upload the scans again.",
            report=report,
        ) from None
    finally:
        side.close()
    progress(side.total, side.total)
    report = scratch / f"{job.contest.slug}-scans-import.txt"
    report.write_text(
        "\n".join(
            [
                summary.line(),
                *_plan_lines(summary.plan),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    return report
