"""The whole contest's printouts as one zip: a background job's work (`grading.jobs.running`).

The zip holds what `render_papers --bundle` writes, once without and once with the marking
pages (`--criteria`), each in its own folder:

    demo-printouts/without-marking-pages/demo-p1-all-papers.pdf
    demo-printouts/without-marking-pages/demo-p1-K7QX.pdf
    demo-printouts/with-marking-pages/demo-p1-all-papers.pdf
    ...

Every paper the jury grades is in it (the organizer's and the chair's scope). Rendering goes
through the same batch as the command (`grading.printing.batch.render_jobs`, in the bounded pool,
with the shared cache), so a retry after an interruption renders only what was not finished.
Each file goes into the zip, on disk, as soon as it is ready: the job holds neither the
files nor the archive in memory, and writes no second copy of each PDF before zipping."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from django.conf import settings

from grading.models import Job
from grading.printing import batch as pdf_batch
from grading.printing import pdf
from grading.printing import selectors as pdf_selectors
from grading.rules import access
from grading.rules.refusals import WrongState

VARIANTS = (("without-marking-pages", False), ("with-marking-pages", True))


def contest_printouts_build(job: Job, scratch: Path, progress) -> Path:
    """Render every problem's papers and bundles, with and without marking pages, each into
    the zip in `scratch` as soon as it is ready; returns the zip. `progress(done, total)`
    counts files."""
    contest = job.contest
    top = f"{contest.slug}-printouts"
    render: list[pdf_batch.RenderJob] = []
    names: dict[int, str] = {}
    for problem in contest.problems.select_related("contest").order_by("number"):
        data = pdf_selectors.problem_print(problem=problem, juror=None)
        if not data.papers:
            continue
        for folder, with_criteria in VARIANTS:
            htmls = pdf.problem_htmls(data, with_criteria=with_criteria)
            bundle = pdf_batch.RenderJob.bundle(
                [html for _, html in htmls], title=pdf.bundle_title(problem, count=len(htmls))
            )
            render.append(bundle)
            bundle_name = pdf.bundle_filename(problem, mine=False, marking=with_criteria)
            names[id(bundle)] = f"{top}/{folder}/{bundle_name}"
            for label, html in htmls:
                single = pdf_batch.RenderJob.paper(html)
                render.append(single)
                single_name = pdf.paper_filename(problem, label, marking=with_criteria)
                names[id(single)] = f"{top}/{folder}/{single_name}"
    if not render:
        raise WrongState(
            f"Contest {contest.name} has no paper to print yet: import the AI systems' outputs "
            "and select the papers for the jury first."
        )
    archive = scratch / f"{top}.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as zipped:
        progress(0, len(render))

        def ready(made: pdf_batch.RenderJob) -> None:
            add_to_zip(zipped, Path(made.cache_file), names[id(made)])
            progress(len(zipped.infolist()), len(render))

        pdf_batch.render_jobs(render, workers=settings.PRINT_WORKERS, progress=ready)
    return archive


def add_to_zip(zipped: zipfile.ZipFile, path: Path, name: str) -> None:
    """Copy the file at `path` into `zipped` as `name`, in chunks. Stored, not deflated (PDFs
    are compressed already), with a fixed date, so that the archive says nothing about when
    each paper was rendered."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    with path.open("rb") as source, zipped.open(info, "w") as target:
        while chunk := source.read(1 << 20):
            target.write(chunk)


def bundle_build(job: Job, scratch: Path, progress) -> Path:
    """One reader's bundle of `job.problem`'s papers, in their scope (a juror's own papers;
    every paper the jury grades for the chair and the organizer), as the bundle download
    gives it: too many papers to render within a request. `progress(done, total)` counts the
    papers laid out."""
    problem, user = job.problem, job.requested_by
    if user is None or not access.may_read_problem(user, problem):
        raise WrongState("Whoever asked for these printouts may no longer read this problem.")
    juror = None if access.reads_every_paper(user) else user
    data = pdf_selectors.problem_print(problem=problem, juror=juror)
    if not data.papers:
        raise WrongState(f"There is no paper of problem {problem.number} to print any more.")
    htmls = [html for _, html in pdf.problem_htmls(data, with_criteria=job.with_criteria)]
    render = pdf_batch.RenderJob.bundle(htmls, title=pdf.bundle_title(problem, count=len(htmls)))
    progress(0, len(htmls))
    pdf_batch.render_one(render, progress=lambda done: progress(done, len(htmls)))
    out = scratch / pdf.bundle_filename(problem, mine=juror is not None, marking=job.with_criteria)
    shutil.copyfile(render.cache_file, out)
    return out
