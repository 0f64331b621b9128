"""Batches of printouts for the whole contest's job, the `render_papers` command, a large bundle
and the benchmark: the parent builds HTML and checks the cache, a bounded pool of worker
processes (`print_pool`, the one place they are made) renders what is missing.

Workers get plain strings and paths (`RenderJob`), never touch Django's settings or the
database, and are replaced after PRINT_TASKS_PER_CHILD files.

A bundle is merged from its papers' PDFs (`grading.printing.pdf.merge_papers`): every paper is
made first, across the pool, and the bundles after them, so that no process lays out a whole
bundle while the others wait."""

from __future__ import annotations

import shutil
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
    cache_path,
    mark_used,
    merge_papers,
    paper_key,
    render_document,
    render_scan_image,
    scan_parts,
    worker_init,
)


@dataclass(frozen=True, eq=False)
class RenderJob:
    """One file to produce: a paper (one HTML, with the scanned pages it draws) or a bundle
    (several, with a title, merged from the papers' files in the cache, `papers`). `out`, when
    given, is where a copy of the finished file goes."""

    htmls: tuple[str, ...]
    cache_file: str
    out: str | None = None
    title: str | None = None
    images: tuple[ScanImage, ...] = ()
    slots: tuple[Slot, ...] = ()
    papers: tuple[str, ...] = ()

    @classmethod
    def paper(cls, html: str, *, out: str | None = None) -> RenderJob:
        images, slots = scan_parts([html])
        return cls(
            htmls=(html,),
            cache_file=str(cache_path(paper_key(html))),
            out=out,
            images=images,
            slots=slots,
        )

    @classmethod
    def bundle(cls, htmls: list[str], *, title: str, out: str | None = None) -> RenderJob:
        return cls(
            htmls=tuple(htmls),
            cache_file=str(cache_path(bundle_key(htmls, title=title))),
            out=out,
            title=title,
            papers=tuple(str(cache_path(paper_key(html))) for html in htmls),
        )

    @property
    def is_bundle(self) -> bool:
        return self.title is not None


def run_job(job: RenderJob) -> str | None:
    """Render one job, store it in the cache and copy it to `job.out`. Runs in a worker; a
    paper's image PDFs, and a bundle's papers, are made first (`render_jobs`)."""
    if job.is_bundle:
        merge_papers(job.papers, title=job.title, out=job.cache_file)
    else:
        render_document(job.htmls[0], slots=job.slots, out=job.cache_file)
    if job.out:
        _copy(job.cache_file, job.out)
    return job.out


def _copy(source: str, out: str) -> None:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, out)


def print_pool(workers: int) -> ProcessPoolExecutor:
    """The one place printout worker processes are made: at most `workers`, started in a fresh
    interpreter ("forkserver", forked from a server that has imported this module and
    WeasyPrint once, so each starts in milliseconds; else "spawn"), never forked from a parent
    that holds Django, its database connection and threads. Workers get plain strings and
    paths."""
    methods = get_all_start_methods()
    context = get_context("forkserver" if "forkserver" in methods else "spawn")
    if context.get_start_method() == "forkserver":
        # WeasyPrint too (`engine`, which this module imports only when a worker starts): each
        # worker imported it anew, 0.8 s of every pool's start (bench/pdf.py's two-process
        # batch). Imported, not used: the server holds no font configuration, no thread.
        context.set_forkserver_preload([__name__, "grading.printing.engine"])
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


def papers_to_make(bundles: list[RenderJob], *, making: list[RenderJob]) -> list[RenderJob]:
    """The papers that `bundles` are merged from and that are neither in the cache nor among
    the jobs `making`: each once, however many bundles hold it."""
    known = {job.cache_file for job in making}
    extra = []
    for bundle in bundles:
        for html, paper in zip(bundle.htmls, bundle.papers, strict=True):
            if paper in known:
                continue
            known.add(paper)
            if Path(paper).exists():
                mark_used(Path(paper))
            else:
                extra.append(RenderJob.paper(html))
    return extra


def _missing_images(papers: list[RenderJob]) -> list[ScanImage]:
    images: dict[str, ScanImage] = {}
    for job in papers:
        for image in job.images:
            if Path(image.pdf).exists():
                mark_used(Path(image.pdf))
            else:
                images.setdefault(image.digest, image)
    return list(images.values())


def _run(function: Callable, items: list, *, workers: int):
    """`in_pools`, or in this process when one worker is enough."""
    if workers == 1:
        for item in items:
            yield item, function(item)
    else:
        yield from in_pools(function, items, workers=workers)


def render_jobs(
    jobs: list[RenderJob],
    *,
    workers: int = 1,
    progress: Callable[[RenderJob], None] | None = None,
) -> RenderStats:
    """Produce every job: copied from the cache when there, else rendered, spread over up to
    `workers` processes (`print_pool`), in three rounds: every scanned page that a missing
    paper draws and that is not in the cache is made into its PDF, once, however many files
    hold it; then every missing paper (with those that a missing bundle holds and no job asks
    for); then every missing bundle, merged from its papers. `progress(job)` is called in this
    process once per finished job, as soon as its file is in the cache (and at `job.out`), so
    that a caller can stream it away at once."""
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
    papers = [job for job in missing if not job.is_bundle]
    bundles = [job for job in missing if job.is_bundle]
    # Made for the bundles only: rendered, but not counted nor reported as files asked for.
    extra = papers_to_make(bundles, making=papers)
    asked = {id(job) for job in missing}
    images = _missing_images(papers + extra)
    stats.images = len(images)
    workers = max(1, min(workers, max(len(papers) + len(extra), len(bundles))))
    for _ in _run(render_scan_image, images, workers=workers):
        pass
    for round_ in (papers + extra, bundles):
        for job, _ in _run(run_job, round_, workers=min(workers, max(1, len(round_)))):
            if id(job) not in asked:
                continue
            stats.rendered += 1
            if progress:
                progress(job)
    return stats


def render_one(job: RenderJob, *, progress: Callable[[int], None]) -> None:
    """Produce one large job (a bundle of many papers) into the cache, telling `progress` how
    many of its papers are ready as each is: its missing papers made across the pool
    (PRINT_WORKERS processes), then merged in a process of its own."""
    if Path(job.cache_file).exists():
        mark_used(Path(job.cache_file))
        progress(len(job.htmls))
        return
    papers = papers_to_make([job], making=[])
    ready = len(job.htmls) - len(papers)
    progress(ready)
    workers = settings.PRINT_WORKERS
    for _ in in_pools(render_scan_image, _missing_images(papers), workers=workers):
        pass
    for _ in in_pools(run_job, papers, workers=workers):
        ready += 1
        progress(ready)
    for _ in in_pools(run_job, [job], workers=1):
        pass
    progress(len(job.htmls))
