"""Importing human contestants' scanned papers: every file read and every page sorted and
checked first, each problem reported as a sentence naming the file and page, nothing written
on error; then, in one transaction, a human paper per contestant (reused by its code), its
labels, and its pages as masked, metadata-free images under SCANS_DIR."""

import logging
import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePath

from django.db import transaction
from django.utils.translation import ngettext

from grading.intake.importers.errors import ImportProblems, Problems, Progress, no_progress
from grading.intake.labels import paper_labels_ensure
from grading.intake.scans.bounds import pdf_bound_problems
from grading.intake.scans.codes import code_problem
from grading.intake.scans.languages import map_languages
from grading.intake.scans.reading import (
    Answer,
    NotAPdf,
    PageRef,
    find_cover,
    open_pdf,
    read_page_map,
    render_page,
    sort_by_covers,
    sort_by_map,
    upright,
)
from grading.models import Paper, PaperLabel, ScanPage
from grading.papers import images
from grading.rules import access
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScanFile:
    """A scanned file: its name (a contestant's code or a neutral scan number) and its bytes, or
    the path it is read from (pdfium then reads the file as it needs it, so that a batch of
    scans is never held in memory whole)."""

    name: str
    data: bytes = b""
    path: Path | None = None

    @property
    def source(self) -> bytes | Path:
        return self.path if self.path is not None else self.data

    def pdf(self):
        return open_pdf(self.source)


@dataclass
class _Staged:
    name: str
    width: int
    height: int


@dataclass(frozen=True)
class ScanSummary:
    contestants: int
    new_papers: int
    answers: int
    pages: int
    # (contestant's code, problem number, pages) per answer, in the order found.
    plan: tuple[tuple[str, int, int], ...] = ()
    dry_run: bool = False
    # (contestant's code, problem number) of each problem left blank: recorded as no answer.
    blank: tuple[tuple[str, int], ...] = ()
    # How many contestants' answer languages the page map gave.
    languages: int = 0

    def line(self) -> str:
        verb = "Would import" if self.dry_run else "Imported"
        line = (
            f"{verb} {ngettext('%d scanned page', '%d scanned pages', self.pages) % self.pages}: {ngettext('%d answer', '%d answers', self.answers) % self.answers} of "
            f"{ngettext('%d contestant', '%d contestants', self.contestants) % self.contestants} ({ngettext('%d new paper', '%d new papers', self.new_papers) % self.new_papers})."
        )
        if self.languages:
            people = ngettext("%d contestant", "%d contestants", self.languages) % self.languages
            line += f" Answer languages of {people} {'would be ' if self.dry_run else ''}set."
        return f"{line} {_blank_sentence(self.blank, dry_run=self.dry_run)}".rstrip()


def _blank_sentence(blank, *, dry_run: bool) -> str:
    """Who left what blank, in one sentence: "H002 left P3 blank; H004 left P1 and P2 blank:
    recorded as no answer (0 points, no juror)."; empty when nobody did."""
    if not blank:
        return ""
    by_code: dict[str, list[int]] = defaultdict(list)
    for code, number in blank:
        by_code[code].append(number)
    parts = []
    for code, numbers in by_code.items():
        named = [f"P{number}" for number in sorted(numbers)]
        listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
        parts.append(f"{code} left {listed} blank")
    verb = "would be" if dry_run else "are"
    return f"{'; '.join(parts)}: {verb} recorded as no answer (0 points, no juror)."


def _as_scan_file(item) -> ScanFile:
    if isinstance(item, ScanFile):
        return item
    path = Path(item)
    return ScanFile(path.name, path=path)


def _allowed_inputs(contest: Contest, actor, files, page_map):
    """The import's and the survey's first step: only an organizer (or a shell command, with
    no actor) imports into a contest that is not final; the files and the page map as
    ScanFiles."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can import scanned papers.",
    )
    refuse_if_final(contest, "its papers")
    files = [_as_scan_file(item) for item in files]
    return files, (_as_scan_file(page_map) if page_map is not None else None)


def scans_import(
    *,
    contest: Contest,
    files,
    page_map: ScanFile | Path | None = None,
    actor=None,
    progress: Progress | None = None,
    dry_run: bool = False,
) -> ScanSummary:
    """Import scanned PDFs (`files`: paths or ScanFiles) into `contest` as human papers.

    Pages are sorted by the answer-sheet covers in them, or, for the files a page map names, by
    its ranges. All-or-nothing: raises ImportProblems with every problem found, a refusal on a
    final contest, NotAllowed for an `actor` who is not an organizer (None: a shell command).
    `dry_run`: everything read and checked, nothing written; the summary says what would be."""
    files, page_map = _allowed_inputs(contest, actor, files, page_map)
    progress = progress or no_progress
    problems = Problems()
    documents, ranges_by_file = _opened(files, page_map)

    images.scans_dir().mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".import-", dir=images.scans_dir()))
    try:
        staged, answers = _read_all(
            contest, documents, ranges_by_file, page_map, staging, problems, progress
        )
        blank = _check(contest, answers, problems)
        if problems:
            raise ImportProblems(problems.sentences)
        languages, _ = map_languages(
            [r for ranges in ranges_by_file.values() for r in ranges],
            map_name=page_map.name if page_map else "",
        )
        if dry_run:
            return _plan(contest, answers, blank, languages)
        summary = _write(contest, answers, staged, staging, blank, languages)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    # The import_scans command has no user: the log says "by the command line", not "None".
    who = actor if actor is not None else "the command line"
    logger.info("Scanned papers imported into %s by %s: %s", contest.slug, who, summary.line())
    return summary


@dataclass(frozen=True)
class ScanSurvey:
    """What a scanned upload holds by its files' structure alone (nothing rendered)."""

    files: int
    pages: int

    def line(self) -> str:
        return (
            f"Would read {ngettext('%d scanned page', '%d scanned pages', self.pages) % self.pages} in {ngettext('%d file', '%d files', self.files) % self.files}: "
            "the import reads the covers and sorts the pages in the background, and its report "
            "says what each contestant got."
        )


def scans_survey(*, contest: Contest, files, page_map=None, actor=None) -> ScanSurvey:
    """`scans_import`'s checks that need no page rendered (names, PDFs, every bound, the page
    map's rows), in the time of reading the files' structure: ImportProblems as the import
    words them, or how many files and pages the import would read."""
    files, page_map = _allowed_inputs(contest, actor, files, page_map)
    documents, ranges_by_file = _opened(files, page_map)
    pages = sum(len(document) for document in documents.values())
    # The page map's ranges need only the page counts: checked here too, so that a large
    # upload's preview says what is wrong with them.
    problems = []
    for name, ranges in ranges_by_file.items():
        if name in documents:
            _, sentences = sort_by_map(
                ranges, file=name, page_count=len(documents[name]), map_name=page_map.name
            )
            problems.extend(sentences)
    for document in documents.values():
        document.close()
    if problems:
        raise ImportProblems(problems)
    return ScanSurvey(len(documents), pages)


def _opened(files: list[ScanFile], page_map: ScanFile | None):
    """Every file opened as a PDF and checked against the bounds, and the page map read: the
    documents by name and the page map's ranges by file; ImportProblems with every sentence."""
    problems = Problems()

    documents = {}
    for scan in files:
        why = code_problem(PurePath(scan.name).stem)
        if why:
            problems.add(
                scan.name,
                "a scanned file's name may be a contestant's code or a scan number "
                f"(“scan-017.pdf”), never a name: {why}. Rename the file",
            )
        if scan.name in documents:
            problems.add(scan.name, "two files have this name; give each its own")
            continue
        try:
            documents[scan.name] = scan.pdf()
        except NotAPdf:
            problems.add(scan.name, "this is not a PDF file; scan to PDF")
            continue
        problems.sentences.extend(
            pdf_bound_problems(documents[scan.name], name=scan.name, source=scan.source)
        )
    ranges_by_file = defaultdict(list)
    if page_map is not None:
        try:
            data = page_map.path.read_bytes() if page_map.path else page_map.data
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = None
            problems.add(page_map.name, "the page map is not UTF-8 text; save it as UTF-8 CSV")
        if text is not None:
            ranges, map_problems = read_page_map(text, name=page_map.name)
            problems.sentences.extend(map_problems)
            problems.sentences.extend(map_languages(ranges, map_name=page_map.name)[1])
            for page_range in ranges:
                if page_range.file not in documents and not any(
                    scan.name == page_range.file for scan in files
                ):
                    problems.add(
                        f"{page_map.name}, row {page_range.row}",
                        f"no scanned file is called {page_range.file}",
                    )
                ranges_by_file[page_range.file].append(page_range)
    if problems:
        for document in documents.values():
            document.close()
        raise ImportProblems(problems.sentences)
    return documents, ranges_by_file


def _position_by_map(ranges, number: int) -> int:
    """The page's position (from 1) in the page map's answer that holds it; 1 (masked as a
    first page) for a page no range holds, which the sorting refuses anyway."""
    for page_range in ranges:
        if not page_range.blank and page_range.first <= number <= page_range.last:
            return number - page_range.first + 1
    return 1


def _read_all(contest, documents, ranges_by_file, page_map, staging, problems, progress):
    """Render every page, stage its stored image (covers are not stored) with the contest's
    scan mask over the code box on the pages that carry it, and sort the pages into
    answers."""
    staged: dict[tuple[str, int], _Staged] = {}
    answers: list[Answer] = []
    refs_by_file: dict[str, list[PageRef]] = defaultdict(list)
    work = [(name, index) for name, document in documents.items() for index in range(len(document))]
    turn_in_file: dict[str, int] = {}
    # The position in its answer of the page read last in each file (0 just after a cover;
    # pages before any cover are masked as first pages, and refused when sorted).
    after_cover: dict[str, int] = {}
    for name, index in progress(work, len(work), "Reading scanned pages"):
        image = render_page(documents[name], index)
        by_map = name in ranges_by_file
        cover = find_cover(image)
        ref = PageRef(name, index + 1, cover=None if by_map else cover)
        refs_by_file[name].append(ref)
        if cover is not None and not by_map:
            # A cover is turned as it lies; the pages after it were fed the same way.
            turn_in_file[name] = cover.turn
            after_cover[name] = 0
            continue
        if by_map:
            position = _position_by_map(ranges_by_file[name], index + 1)
        else:
            position = after_cover[name] = after_cover[name] + 1 if name in after_cover else 1
        turn = cover.turn if cover is not None else turn_in_file.get(name, 0)
        mask = contest.scan_mask_percent if contest.masks_scan_page(position) else 0
        page = images.masked(upright(image, turn), percent=mask)
        stored = _Staged(images.random_name(), page.width, page.height)
        images.save_png(page, staging / stored.name)
        staged[(name, index + 1)] = stored
    for name, document in documents.items():
        document.close()
        if name in ranges_by_file:
            found, sentences = sort_by_map(
                ranges_by_file[name],
                file=name,
                page_count=len(refs_by_file[name]),
                map_name=page_map.name,
            )
        else:
            found, sentences = sort_by_covers(refs_by_file[name])
        answers.extend(found)
        problems.sentences.extend(sentences)
    return staged, answers


def _check(contest: Contest, answers: list[Answer], problems: Problems) -> list[tuple[str, int]]:
    """Every problem of the answers as a sentence in `problems`; returns the (code, problem
    number) of each problem left blank. A problem is blank when its cover has no page after it,
    when the contestant's covers skip it, or when a page map's row gives it no pages; a page
    map that forgets a problem is refused, as a typing slip rather than a blank."""
    numbers = set(contest.problems.values_list("number", flat=True))
    by_map: set[str] = set()
    first_seen: dict[tuple[str, int], Answer] = {}
    codes: dict[str, None] = {}
    for answer in answers:
        where = answer.origin
        cover = answer.start.cover if answer.start else None
        if cover is not None and cover.contest_slug != contest.slug:
            problems.add(
                where, f"the cover's code names contest {cover.contest_slug}, not this one"
            )
            continue
        why = code_problem(answer.code)
        if why:
            problems.add(where, f"“{answer.code}” cannot be a contestant's code: {why}")
            continue
        if answer.problem_number not in numbers:
            problems.add(
                where,
                f"there is no problem {answer.problem_number} in {contest.name}",
            )
            continue
        key = (answer.code, answer.problem_number)
        if key in first_seen:
            earlier = first_seen[key]
            problems.add(
                where,
                f"a second answer of contestant {answer.code} to problem "
                f"{answer.problem_number} (the first is at {earlier.origin}); remove one",
            )
            continue
        first_seen[key] = answer
        codes[answer.code] = None
        if answer.start is None:
            by_map.add(answer.code)
    papers = {paper.identity: paper for paper in contest.papers.filter(identity__in=list(codes))}
    for code, paper in papers.items():
        if paper.source != Paper.Source.HUMAN:
            problems.add("", f"{code} is already the name of an AI system's paper in this contest.")
    scanned = set(
        ScanPage.objects.filter(paper__in=papers.values()).values_list(
            "paper__identity", "problem__number"
        )
    )
    for code, number in sorted(scanned):
        if (code, number) in first_seen and first_seen[code, number].pages:
            problems.add(
                "",
                f"contestant {code} already has scanned pages for problem {number}; "
                "they were imported before.",
            )
    blank = []
    for code in codes:
        for number in sorted(numbers):
            answer = first_seen.get((code, number))
            if answer is not None:
                if not answer.pages and (code, number) not in scanned:
                    blank.append((code, number))
            elif (code, number) in scanned:
                continue
            elif code in by_map:
                problems.add(
                    "",
                    f"contestant {code} has no pages for problem {number} in the page map; if "
                    f"they left it blank, give it the row {code}.pdf,{number},, (no pages).",
                )
            else:
                blank.append((code, number))
    return blank


def _plan_rows(answers) -> tuple[tuple[str, int, int], ...]:
    return tuple(
        (answer.code, answer.problem_number, len(answer.pages))
        for answer in answers
        if answer.pages
    )


def _plan(contest, answers, blank, languages) -> ScanSummary:
    codes = list(dict.fromkeys(answer.code for answer in answers))
    existing = contest.papers.filter(identity__in=codes).count()
    rows = _plan_rows(answers)
    pages = sum(len(answer.pages) for answer in answers)
    return ScanSummary(
        len(codes),
        len(codes) - existing,
        len(rows),
        pages,
        rows,
        dry_run=True,
        blank=tuple(blank),
        languages=len(languages),
    )


def _record_blank(contest, papers, answers, blank) -> None:
    """Each problem left blank is "no answer" on its paper's label for the problem; a problem
    answered now is no longer blank (its pages came after a blank was recorded). A query per
    problem at most, each way."""
    for flag, pairs in (
        (True, blank),
        (False, [(answer.code, answer.problem_number) for answer in answers if answer.pages]),
    ):
        by_number: dict[int, list[Paper]] = defaultdict(list)
        for code, number in pairs:
            by_number[number].append(papers[code])
        for number, flagged in by_number.items():
            PaperLabel.objects.filter(
                problem__contest=contest, problem__number=number, paper__in=flagged
            ).exclude(blank=flag).update(blank=flag)


def _write(contest, answers, staged, staging, blank, languages) -> ScanSummary:
    moved: list[Path] = []
    try:
        with transaction.atomic():
            contest = refuse_if_final_now(contest, what="its papers")
            problems = {problem.number: problem for problem in contest.problems.all()}
            codes = list(dict.fromkeys(answer.code for answer in answers))
            papers = {p.identity: p for p in contest.papers.filter(identity__in=codes)}
            new_papers = 0
            for code in codes:
                if code not in papers:
                    papers[code] = Paper.objects.create(
                        contest=contest, source=Paper.Source.HUMAN, identity=code
                    )
                    new_papers += 1
            paper_labels_ensure(contest=contest)
            rows = []
            for answer in answers:
                for position, ref in enumerate(answer.pages, start=1):
                    stored = staged[(ref.file, ref.number)]
                    target = images.scans_dir() / stored.name
                    (staging / stored.name).replace(target)
                    moved.append(target)
                    rows.append(
                        ScanPage(
                            paper=papers[answer.code],
                            problem=problems[answer.problem_number],
                            position=position,
                            image=stored.name,
                            width=stored.width,
                            height=stored.height,
                        )
                    )
            ScanPage.objects.bulk_create(rows)
            _record_blank(contest, papers, answers, blank)
            for code, language in languages.items():
                papers[code].answer_language = language
            Paper.objects.bulk_update([papers[code] for code in languages], ["answer_language"])
    except BaseException:
        for path in moved:
            path.unlink(missing_ok=True)
        raise
    plan = _plan_rows(answers)
    return ScanSummary(
        len(codes),
        new_papers,
        len(plan),
        len(rows),
        plan,
        blank=tuple(blank),
        languages=len(languages),
    )
