"""Reads of a calibration round: the chair's page (papers, reference grid, who submitted, the
spread of the submitted calibration marks) and a juror's calibration sheet (their own marks;
after they submit, the reference beside them and the group's spread, never who gave what).
Each runs a fixed number of queries whatever the number of papers and jurors.

Independence: a juror's sheet loads the reference and the other jurors' marks only once the
sheet is submitted, so nothing on a draft's page can reveal them. A paper the chair keeps out
of the round for seeding is on the chair's page alone (its references, never in the spread):
no read of a juror's calibration sheet reaches it, so that its seeds are papers they never
saw."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery

from grading.calibration.spread import Disagreement, Spread
from grading.marking.selectors import GridFigures, ReopenedWords
from grading.models import (
    CalibrationMark,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    GradingGroup,
    PaperLabel,
    ReferenceMark,
    ReferenceMarkEvent,
)
from grading.rules.domain import cent, points_text
from rubrics.models import Criterion, Problem
from rubrics.validators import validate_points


@dataclass
class Cell(ReopenedWords):
    criterion: Criterion
    points: Decimal | None = None
    note: str = ""
    version: int = 0
    reference: ReferenceMark | None = None
    spread: Spread | None = None
    # The amendment of the scheme that reopened the juror's mark (number and reason), until
    # they re-confirm or re-mark it.
    reopened_version: int | None = None
    reopened_reason: str = ""
    # The reference as it was when the juror submitted, when the chair changed it since (the
    # first change after the submission: its old points and note).
    reference_then: ReferenceMarkEvent | None = None

    @property
    def reopened(self) -> bool:
        return self.reopened_version is not None

    @property
    def shown(self) -> str:
        return points_text(self.points)

    @property
    def reference_then_shown(self) -> str:
        return points_text(self.reference_then.old_points) if self.reference_then else ""

    @property
    def reference_shown(self) -> str:
        return points_text(self.reference.points) if self.reference else ""

    @property
    def agrees(self) -> bool:
        """Whether the mark equals the reference; a reopened mark agrees with nothing until
        its juror re-confirms it."""
        return (
            not self.reopened
            and self.reference is not None
            and self.points == self.reference.points
        )


@dataclass
class Row:
    paper: CalibrationPaper
    cells: list[Cell] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.paper.label

    @property
    def kept(self) -> bool:
        """Kept out of the round for seeding: no juror grades it in the round."""
        return self.paper.for_seeding

    @property
    def total_shown(self) -> str:
        points = [cell.points for cell in self.cells if cell.points is not None]
        return points_text(sum(points, Decimal(0))) if points else ""

    @property
    def complete(self) -> bool:
        return all(cell.points is not None for cell in self.cells)


@dataclass
class RoundView:
    round: CalibrationRound
    criteria: list[Criterion]
    rows: list[Row]
    sheets: list[CalibrationSheet]
    jurors_without_sheet: list[str]
    # The calibration marks an amendment reopened that wait for their jurors, and the
    # references that no longer fit their amended criterion (to re-enter).
    reopened_waiting: int = 0
    references_unfit: list[str] = field(default_factory=list)
    # The chair's changes of references once entered, newest first.
    reference_changes: list[ReferenceMarkEvent] = field(default_factory=list)
    # The jurors whose calibration sheet is not submitted (`sheets_missing`): closing the
    # round without them asks the chair to confirm.
    sheets_missing: list[str] = field(default_factory=list)

    @property
    def opened(self) -> bool:
        return bool(self.sheets)

    @property
    def graded_rows(self) -> list[Row]:
        """The papers the jurors grade in the round: the spread's."""
        return [row for row in self.rows if not row.kept]

    @property
    def kept_rows(self) -> list[Row]:
        """The papers kept out of the round for seeding: a seeded round's seeds."""
        return [row for row in self.rows if row.kept]

    @property
    def submitted(self) -> int:
        return sum(1 for sheet in self.sheets if sheet.is_submitted)

    @property
    def by_criterion(self) -> list[tuple[Criterion, list[tuple[Row, Cell]]]]:
        """The spread's grid turned for the chair's page: a line per criterion, a column per
        paper graded in the round (a paper kept for seeding has no calibration mark)."""
        return [
            (criterion, [(row, row.cells[index]) for row in self.graded_rows])
            for index, criterion in enumerate(self.criteria)
        ]

    @property
    def by_disagreement(self) -> list[Disagreement]:
        """The spread for the chair's page: a line per criterion, the widest disagreement with
        the reference first (`Disagreement.order`; the scheme's order among equals)."""
        lines = []
        for criterion, cells in self.by_criterion:
            spreads = [cell.spread for _, cell in cells if cell.spread is not None]
            marks = sum(spread.count for spread in spreads)
            distance = sum((spread.distance for spread in spreads), Decimal(0))
            lines.append(
                Disagreement(
                    criterion=criterion,
                    cells=cells,
                    marks=marks,
                    off=sum(spread.off for spread in spreads),
                    mean_distance=cent(distance / marks) if marks else None,
                )
            )
        return sorted(lines, key=lambda line: line.order)

    @property
    def disagreeing(self) -> list[Disagreement]:
        """The criteria with a mark off the reference by more than its tolerance, widest
        first."""
        return [line for line in self.by_disagreement if line.off]


def problem_round(*, contest_slug: str, problem_number: int):
    """The problem (with its contest) and its round, or None for the round. One query."""
    problem = (
        Problem.objects.select_related("contest", "calibration")
        .filter(contest__slug=contest_slug, number=problem_number)
        .first()
    )
    if problem is None:
        return None, None
    round_ = Problem.calibration.related.get_cached_value(problem, default=None)
    return problem, round_


def pickable_labels(problem: Problem) -> list[str]:
    """The problem's labels a calibration paper may have: not blank. One query."""
    return list(
        PaperLabel.objects.filter(problem=problem, blank=False)
        .order_by("label")
        .values_list("label", flat=True)
    )


def round_picks(round_: CalibrationRound) -> tuple[list[str], set[str], set[str]]:
    """For the chair picking the round's papers again: the problem's labels a calibration paper
    may have (`pickable_labels`), and the live labels of the round's papers graded in it and
    of those kept out of it for seeding. One query."""
    kept_flag = CalibrationPaper.objects.filter(round=round_, paper_id=OuterRef("paper_id"))
    labels, graded, kept = [], set(), set()
    for label, for_seeding in (
        PaperLabel.objects.filter(problem_id=round_.problem_id, blank=False)
        .annotate(for_seeding=Subquery(kept_flag.values("for_seeding")[:1]))
        .order_by("label")
        .values_list("label", "for_seeding")
    ):
        labels.append(label)
        if for_seeding is not None:
            (kept if for_seeding else graded).add(label)
    return labels, graded, kept


def _submitted_values(round_: CalibrationRound) -> dict[tuple[int, int], list[Decimal]]:
    values: dict[tuple[int, int], list[Decimal]] = {}
    for paper_id, criterion_id, points in CalibrationMark.objects.filter(
        sheet__round=round_,
        sheet__state=CalibrationSheet.State.SUBMITTED,
        points__isnull=False,
    ).values_list("calibration_paper_id", "criterion_id", "points"):
        values.setdefault((paper_id, criterion_id), []).append(points)
    return values


def _rows(round_, criteria, *, references, spreads, own=None, kept=True) -> list[Row]:
    """A row per paper of the round in its order; without the papers kept for seeding unless
    `kept`."""
    papers = round_.papers.all() if kept else round_.papers.graded_in_round()
    rows = []
    for paper in papers.order_by("position"):
        row = Row(paper=paper)
        for criterion in criteria:
            cell = Cell(criterion=criterion, reference=references.get((paper.pk, criterion.pk)))
            if own is not None:
                points, note, version, reopened, reason = own.get(
                    (paper.pk, criterion.pk), (None, "", 0, None, "")
                )
                cell.points, cell.note, cell.version = points, note, version
                cell.reopened_version, cell.reopened_reason = reopened, reason or ""
            if spreads is not None:
                cell.spread = Spread(
                    values=sorted(spreads.get((paper.pk, criterion.pk), [])),
                    reference=cell.reference.points if cell.reference else None,
                    maximum=criterion.points,
                    tolerance=criterion.tolerance,
                )
            row.cells.append(cell)
        rows.append(row)
    return rows


def _with_references_then(rows: list[Row], sheet: CalibrationSheet) -> None:
    """Each cell whose reference the chair changed after the juror submitted gets the
    reference as it was then (`Cell.reference_then`). One query; none for a sheet restored
    without its time of submission, whose "since" is unknown."""
    if sheet.submitted_at is None:
        return
    changes = ReferenceMarkEvent.objects.filter(
        reference__calibration_paper__round_id=sheet.round_id,
        created_at__gt=sheet.submitted_at,
    ).order_by("-created_at", "-id")
    # Newest first, so that the earliest change after the submission is the one kept.
    first = {change.reference_id: change for change in changes}
    for row in rows:
        for cell in row.cells:
            if cell.reference is not None:
                cell.reference_then = first.get(cell.reference.pk)


def _references(round_) -> dict[tuple[int, int], ReferenceMark]:
    return {
        (reference.calibration_paper_id, reference.criterion_id): reference
        for reference in ReferenceMark.objects.filter(calibration_paper__round=round_)
    }


def references_unfit(round_: CalibrationRound) -> list[str]:
    """The sentences naming each reference whose points no longer fit its criterion (an
    amendment of the scheme changed the criterion's points, step or tolerance since), in the
    grid's order: the chair re-enters them. Three queries."""
    criteria = list(Criterion.objects.for_problem(round_.problem))
    rows = _rows(round_, criteria, references=_references(round_), spreads=None)
    return _unfit(rows)


def _unfit(rows: list[Row]) -> list[str]:
    unfit = []
    for row in rows:
        for cell in row.cells:
            if cell.reference is None:
                continue
            try:
                validate_points(
                    cell.reference.points, cell.criterion, where=f"Reference of {row.label}"
                )
            except ValidationError as error:
                unfit.extend(error.messages)
    return unfit


def sheets_missing(round_: CalibrationRound) -> list[str]:
    """The usernames of the group's jurors whose calibration sheet of the round is not
    submitted (a draft, or none yet: the round is not open to them, or they joined the group
    since), but not one marked unavailable (they left), by username. One query."""
    submitted = CalibrationSheet.objects.filter(
        round=round_, state=CalibrationSheet.State.SUBMITTED
    ).values("juror_id")
    return list(
        get_user_model()
        .objects.filter(grading_groups__problem_id=round_.problem_id)
        .exclude(juror_profile__unavailable_since__isnull=False)
        .exclude(pk__in=submitted)
        .order_by("username")
        .values_list("username", flat=True)
        .distinct()
    )


def round_view(round_: CalibrationRound) -> RoundView:
    """The chair's view of the round: references, each juror's sheet state, the spread, the
    calibration marks an amendment reopened, the references to re-enter, the references'
    changes and, while the round is open, the jurors whose sheet is not submitted. Nine
    queries while it is open, eight once closed."""
    problem = round_.problem
    criteria = list(Criterion.objects.for_problem(problem))
    rows = _rows(
        round_, criteria, references=_references(round_), spreads=_submitted_values(round_)
    )
    sheets = list(round_.sheets.select_related("juror").order_by("juror__username"))
    with_sheet = {sheet.juror_id for sheet in sheets}
    group_jurors = get_user_model().objects.filter(
        grading_groups__in=GradingGroup.objects.filter(problem=problem)
    )
    without = sorted(
        user.username for user in group_jurors.only("username") if user.pk not in with_sheet
    )
    waiting = CalibrationMark.objects.filter(sheet__round=round_, reopened_by__isnull=False).count()
    return RoundView(
        round=round_,
        criteria=criteria,
        rows=rows,
        sheets=sheets,
        jurors_without_sheet=without,
        reopened_waiting=waiting,
        references_unfit=_unfit(rows) if round_.is_open else [],
        reference_changes=_reference_changes(round_),
        sheets_missing=sheets_missing(round_) if round_.is_open else [],
    )


def _reference_changes(round_: CalibrationRound) -> list[ReferenceMarkEvent]:
    """The changes of the round's references once entered (a first entry is no change), newest
    first, each with its paper's calibration label, its criterion and who made it. One query."""
    return list(
        ReferenceMarkEvent.objects.filter(reference__calibration_paper__round=round_)
        .exclude(old_points__isnull=True, old_note="")
        .select_related("reference__calibration_paper", "reference__criterion", "actor")
        .order_by("-created_at", "-id")
    )


@dataclass
class CalibrationGrid(GridFigures):
    sheet: CalibrationSheet
    criteria: list[Criterion]
    rows: list[Row]
    lock_reason: str | None
    # Why the marks an amendment reopened may not change either (`reopened_lock_reason`).
    reopened_lock_reason: str | None = None

    @property
    def agreed(self) -> int:
        return sum(1 for row in self.rows for cell in row.cells if cell.agrees)

    @property
    def reopened_reasons(self) -> list[str]:
        """The reasons of the amendments that reopened them, as "version 2: …", once each."""
        seen = {
            (cell.reopened_version, cell.reopened_reason)
            for row in self.rows
            for cell in row.cells
            if cell.reopened
        }
        return [f"version {number}: {reason}" for number, reason in sorted(seen)]


def calibration_grid(
    *, sheet: CalibrationSheet, lock_reason: str | None, reopened_lock_reason: str | None = None
) -> CalibrationGrid:
    """The juror's calibration sheet: their own marks on the papers graded in the round (never
    one kept for seeding); once submitted, the reference and the group's spread beside them.
    Three queries for a draft, five once submitted."""
    round_ = sheet.round
    criteria = list(Criterion.objects.for_problem(round_.problem))
    own = {
        (paper_id, criterion_id): cell
        for paper_id, criterion_id, *cell in sheet.marks.values_list(
            "calibration_paper_id",
            "criterion_id",
            "points",
            "note",
            "version",
            "reopened_by__number",
            "reopened_by__reason",
        )
    }
    if sheet.is_submitted:
        references, spreads = _references(round_), _submitted_values(round_)
    else:
        # Independence: no reference and no other juror's mark is read for a draft.
        references, spreads = {}, None
    rows = _rows(round_, criteria, references=references, spreads=spreads, own=own, kept=False)
    if sheet.is_submitted:
        _with_references_then(rows, sheet)
    return CalibrationGrid(
        sheet=sheet,
        criteria=criteria,
        rows=rows,
        lock_reason=lock_reason,
        reopened_lock_reason=reopened_lock_reason,
    )


def own_calibration_sheet(*, juror, round_: CalibrationRound) -> CalibrationSheet | None:
    """The juror's calibration sheet of the round, with the round, problem and contest."""
    return (
        CalibrationSheet.objects.select_related("round__problem__contest")
        .filter(juror=juror, round=round_)
        .first()
    )


def own_calibration_cell(*, sheet: CalibrationSheet, label: str, code: str):
    """The juror's own calibration mark for the paper labelled `label` (K1…) and the criterion
    `code`, with its sheet; else None, as for a paper kept for seeding. One query."""
    mark = (
        CalibrationMark.objects.select_related("criterion", "calibration_paper")
        .filter(
            sheet=sheet,
            calibration_paper__label=label,
            calibration_paper__for_seeding=False,
            criterion__code=code,
        )
        .first()
    )
    if mark is not None:
        mark.sheet = sheet
    return mark


def calibration_paper(
    *, round_: CalibrationRound, label: str, kept: bool = False
) -> CalibrationPaper | None:
    """The round's paper labelled `label` (K1…), with its paper; one kept for seeding only
    with `kept` (for those who lead the round: no juror sees it in the round). One query."""
    papers = round_.papers.all() if kept else round_.papers.graded_in_round()
    return papers.select_related("paper").filter(label=label).first()
