"""The whole contest's printouts as one zip: a background job's work (`grading.services.jobs`).

The zip holds what `render_papers --bundle` writes, once without and once with the marking
pages (`--criteria`), each in its own folder:

    demo-printouts/without-marking-pages/demo-p1-all-papers.pdf
    demo-printouts/without-marking-pages/demo-p1-K7QX.pdf
    demo-printouts/with-marking-pages/demo-p1-all-papers.pdf
    ...

Every paper the jury grades is in it (the organizer's and the chair's scope). Rendering goes
through the same batch as the command (`grading.pdf.render_jobs`, on every core, with the
shared cache), so a retry after an interruption renders only what was not finished."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from grading import pdf
from grading.models import Job
from grading.refusals import WrongState
from grading.selectors import pdf as pdf_selectors

VARIANTS = (("without-marking-pages", False), ("with-marking-pages", True))


def contest_printouts_build(job: Job, scratch: Path, progress) -> Path:
    """Render every problem's papers and bundles, with and without marking pages, into
    `scratch` and zip them there; returns the zip. `progress(done, total)` counts files."""
    contest = job.contest
    top = f"{contest.slug}-printouts"
    files = scratch / top
    render = []
    for problem in contest.problems.select_related("contest").order_by("number"):
        data = pdf_selectors.problem_print(problem=problem, juror=None)
        if not data.papers:
            continue
        for folder, with_criteria in VARIANTS:
            htmls = pdf.problem_htmls(data, with_criteria=with_criteria)
            out = files / folder
            render.append(
                pdf.RenderJob.bundle(
                    [html for _, html in htmls],
                    title=pdf.bundle_title(problem, count=len(htmls)),
                    out=str(out / pdf.bundle_filename(problem, mine=False)),
                )
            )
            render.extend(
                pdf.RenderJob.paper(html, out=str(out / pdf.paper_filename(problem, label)))
                for label, html in htmls
            )
    if not render:
        raise WrongState(
            f"Contest {contest.name} has no paper to print yet: import the AI systems' outputs "
            "and select the papers for the jury first."
        )
    total = len(render)
    done = 0
    progress(done, total)

    def one_more():
        nonlocal done
        done += 1
        progress(done, total)

    pdf.render_jobs(render, workers=os.cpu_count() or 1, progress=one_more)
    archive = scratch / f"{top}.zip"
    _zip_folder(files, archive, top=top)
    return archive


def _zip_folder(folder: Path, archive: Path, *, top: str) -> None:
    # Stored, not deflated (PDFs are compressed already), with a fixed date per entry, as
    # grading.pdf.zip_bytes does; written from the files on disk rather than built in memory.
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as zipped:
        for path in sorted(folder.rglob("*.pdf")):
            info = zipfile.ZipInfo(
                f"{top}/{path.relative_to(folder).as_posix()}", date_time=(1980, 1, 1, 0, 0, 0)
            )
            info.external_attr = 0o644 << 16
            with path.open("rb") as source, zipped.open(info, "w") as target:
                while chunk := source.read(1 << 20):
                    target.write(chunk)
