"""Batches of printouts for the whole contest's job, the `render_papers` command, a large bundle
and the benchmark: the parent builds HTML and checks the cache, a bounded pool of worker
processes (`print_pool`, the one place they are made) renders what is missing.

Workers get plain strings and paths (`RenderJob`), never touch Django's settings or the
database, and are replaced after PRINT_TASKS_PER_CHILD files."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path

from django.conf import settings

from grading.printing.pdf import (
    ScanImage,
    Slot,
    bundle_key,
    cache_key,
    cache_path,
    mark_used,
    render_document,
    render_scan_image,
    scan_parts,
    worker_init,
)


@dataclass(frozen=True, eq=False)
class RenderJob:
    """One file to produce: a paper (one HTML) or a bundle (several, with a title), with the
    scanned pages it draws. `out`, when given, is where a copy of the finished file goes."""

    htmls: tuple[str, ...]
    cache_file: str
    out: str | None = None
    title: str | None = None
    images: tuple[ScanImage, ...] = ()
    slots: tuple[Slot, ...] = ()

    @classmethod
    def paper(cls, html: str, *, out: str | None = None) -> RenderJob:
        images, slots = scan_parts([html])
        return cls(
            htmls=(html,),
            cache_file=str(cache_path(cache_key("paper", html))),
            out=out,
            images=images,
            slots=slots,
        )

    @classmethod
    def bundle(cls, htmls: list[str], *, title: str, out: str | None = None) -> RenderJob:
        key = bundle_key(htmls, title=title)
        images, slots = scan_parts(htmls)
        return cls(
            htmls=tuple(htmls),
            cache_file=str(cache_path(key)),
            out=out,
            title=title,
            images=images,
            slots=slots,
        )


def run_job(job: RenderJob, *, counter: str | None = None) -> str | None:
    """Render one job, store it in the cache and copy it to `job.out`. Runs in a worker; the
    job's image PDFs are made first (`render_jobs`). With `counter`, the number of papers laid
    out so far is written to that file as they are, for the parent to read (`render_one`)."""

    def laid_out(count: int) -> None:
        Path(counter).write_text(str(count))

    render_document(
        job.htmls,
        title=job.title,
        slots=job.slots,
        out=job.cache_file,
        laid_out=laid_out if counter else None,
    )
    if job.out:
        _copy(job.cache_file, job.out)
    return job.out


def _copy(source: str, out: str) -> None:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, out)


def print_pool(workers: int) -> ProcessPoolExecutor:
    """The one place printout worker processes are made: at most `workers`, started in a fresh
    interpreter ("forkserver", forked from a server that has imported this module once, so
    each starts in milliseconds; else "spawn"), never forked from a parent that holds Django,
    its database connection and threads. Workers get plain strings and paths."""
    methods = get_all_start_methods()
    context = get_context("forkserver" if "forkserver" in methods else "spawn")
    if context.get_start_method() == "forkserver":
        context.set_forkserver_preload([__name__])
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=worker_init)


def in_pools(function: Callable, items: list, *, workers: int):
    """(item, result) of `function(item)` for every item, as each finishes, on `workers`
    processes that are replaced after about PRINT_TASKS_PER_CHILD items each, so that the
    memory WeasyPrint and pdfium hold is given back (a long-lived worker grew to 3 GB over a
    whole contest). Replaced by starting a new pool for each run of workers × that many items
    rather than by the executor's own `max_tasks_per_child`: with tasks queued, the executor
    stops replacing the workers that leave and hangs (CPython gh-115634, 3.11 to 3.13.0)."""
    step = workers * settings.PRINT_TASKS_PER_CHILD
    for start in range(0, len(items), step):
        with print_pool(workers) as pool:
            futures = {pool.submit(function, item): item for item in items[start : start + step]}
            for future in as_completed(futures):
                yield futures[future], future.result()


@dataclass
class RenderStats:
    rendered: int = 0
    cached: int = 0
    images: int = 0  # scanned pages made into their PDF (each once)


def render_jobs(
    jobs: list[RenderJob],
    *,
    workers: int = 1,
    progress: Callable[[RenderJob], None] | None = None,
) -> RenderStats:
    """Produce every job: copied from the cache when there, else rendered, spread over up to
    `workers` processes (`print_pool`). First every scanned page that a missing job draws and
    that is not in the cache is made into its PDF, once, however many files hold it.
    `progress(job)` is called in this process once per finished job, as soon as its file is
    in the cache (and at `job.out`), so that a caller can stream it away at once."""
    stats = RenderStats()
    missing = []
    for job in jobs:
        if Path(job.cache_file).exists():
            mark_used(Path(job.cache_file))
            if job.out:
                _copy(job.cache_file, job.out)
            stats.cached += 1
            if progress:
                progress(job)
        else:
            missing.append(job)
    images: dict[str, ScanImage] = {}
    for job in missing:
        for image in job.images:
            if Path(image.pdf).exists():
                mark_used(Path(image.pdf))
            else:
                images.setdefault(image.digest, image)
    stats.images = len(images)
    workers = max(1, min(workers, len(missing)))
    if workers == 1:
        for image in images.values():
            render_scan_image(image)
        for job in missing:
            run_job(job)
            stats.rendered += 1
            if progress:
                progress(job)
        return stats
    for _ in in_pools(render_scan_image, list(images.values()), workers=workers):
        pass
    for job, _ in in_pools(run_job, missing, workers=workers):
        stats.rendered += 1
        if progress:
            progress(job)
    return stats


def render_one(job: RenderJob, *, progress: Callable[[int], None]) -> None:
    """Produce one large job (a bundle of many papers) into the cache, in the pool, telling
    `progress` how many of its papers are laid out about twice a second: a single file, so the
    count comes from inside the worker, through a small file in a private folder."""
    if Path(job.cache_file).exists():
        mark_used(Path(job.cache_file))
        progress(len(job.htmls))
        return
    images = [image for image in job.images if not Path(image.pdf).exists()]
    with tempfile.TemporaryDirectory(prefix="jury-print-") as folder:
        counter = Path(folder) / "laid-out"
        for _ in in_pools(render_scan_image, images, workers=settings.PRINT_WORKERS):
            pass
        with print_pool(1) as pool:
            future = pool.submit(run_job, job, counter=str(counter))
            while True:
                try:
                    future.result(timeout=0.5)
                    break
                except TimeoutError:
                    with contextlib.suppress(FileNotFoundError, ValueError):
                        progress(int(counter.read_text()))
    progress(len(job.htmls))
