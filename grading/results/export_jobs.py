"""Exports of a whole contest as background jobs (`grading.jobs.running` runs them): the
contest's backup, the very file `manage.py export_contest` writes (`grading.backup`), and the
results exports (wide and long, CSV and XLSX, the results page's four downloads) in one zip,
and the jury evaluations' XLSX (`grading.results.jury_evaluation_files`).

The worker has no request: what the export may hold is decided from the person who asked
(`job.requested_by`) when it is made, by the rules the pages use (`grading.rules.access`): the
results name the AI systems only once the contest is final and to someone who may see its
identities, as the results page's own downloads do; the job records whether its file names
them (`Job.names_identities`), so that its download is checked against the rule again (a
contest reopened since is no longer the chair's to read named)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from grading.models import Job
from grading.resolution import comparison
from grading.results import exports
from grading.results import jury_evaluation_files as evaluation_files
from grading.results.jury_evaluations import jury_evaluations
from grading.results.selectors import automatic_scores, provisional_lines
from grading.rules import access

# The four tables of the results page, in the zip's order.
RESULTS_FILES = [(long, fmt) for long in (False, True) for fmt in ("csv", "xlsx")]


def results_identities(job: Job) -> bool:
    """Whether the results name the systems: as the results page's downloads decide it."""
    user = job.requested_by
    return bool(
        user is not None and user.is_active and access.may_export_identities(user, job.contest)
    )


def results_build(job: Job, scratch: Path, progress) -> Path:
    """The results, wide and long, CSV and XLSX, in one zip; `progress` counts files."""
    contest = job.contest
    identities = results_identities(job)
    # Recorded before the file exists: its download checks the identities rule again then.
    Job.objects.filter(pk=job.pk).update(names_identities=identities)
    results = comparison.contest_results(contest, identities=identities, with_marks=True)
    provisional = provisional_lines(contest)
    automatic = automatic_scores(contest)
    total = len(RESULTS_FILES)
    path = scratch / f"{contest.slug}-results.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for done, (long, fmt) in enumerate(RESULTS_FILES, start=1):
            content = exports.results_export(
                results,
                long=long,
                identities=identities,
                fmt=fmt,
                provisional=provisional,
                automatic=None if long else automatic,
            )
            archive.writestr(exports.file_name(contest, long=long, fmt=fmt), content)
            progress(done, total)
    return path


def jury_evaluations_build(job: Job, scratch: Path, progress) -> Path:
    """The jury evaluations' XLSX, as the command's `--format xlsx` writes it; `progress`
    counts rows. It names the systems as the results export does."""
    contest = job.contest
    identities = results_identities(job)
    Job.objects.filter(pk=job.pk).update(names_identities=identities)
    data = jury_evaluations(contest, identities=identities)
    path = scratch / evaluation_files.file_name(contest, fmt="xlsx")
    evaluation_files.xlsx_write(data, path, progress=progress)
    return path
