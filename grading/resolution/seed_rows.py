"""A juror's seeds after they submit: rows of their comparison and cells they open, as a paper
that juror grades alone shows them.

A seed is a calibration paper back in one juror's live sheet under a fresh label; to that juror
it is a paper like any other, so after submitting it must not vanish from what they read. Its
marks are `CalibrationMark`s and never count: these reads are asked for the seed's own juror
only (`access.lists_own_seeds`, `access.may_read_seed`), never for another juror, the chair or
the organizer, and nothing here touches a `Mark`, a `Comment` or a `Resolution`.

A seed's cell settles as the cell of a paper graded by one juror does
(`grading.resolution.cells.settle_cell` with one juror expected); a mark revised after the
sheet was submitted closes it as consensus, as `grading.marking.reconcile.cell_reconcile` closes
such a paper's cell."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Exists, F, OuterRef, Subquery

from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    HelpRequest,
    Resolution,
    Seed,
    Sheet,
)
from grading.resolution.cell_discussion import Discussion, criterion_tasks
from grading.resolution.cells import Cell, settle_cell
from rubrics.models import Criterion, Problem

# What a revised seed mark settles as: the consensus `cell_reconcile` records on a paper's cell.
_CONSENSUS = Resolution.Kind.CONSENSUS


@dataclass(slots=True)
class SeedRow:
    """One seed of the juror, as the comparison reads a paper: its label, the calibration
    paper's id (whose answers and pages the seed shows) and its cells by criterion id."""

    paper_id: int
    label: str
    cells: dict[int, Cell]


def _revised_after_submitting(sheet_of_juror):
    """Whether a seed mark's points changed after its juror's live sheet was submitted."""
    submitted_at = Subquery(sheet_of_juror.values("submitted_at")[:1])
    return Exists(
        CalibrationMarkEvent.objects.filter(
            mark=OuterRef("pk"), created_at__gt=submitted_at
        ).exclude(old_points=F("new_points"))
    )


def _seed_cell(*, paper_id, criterion, juror_id, points, scheme_version, revised) -> Cell:
    marks = [] if points is None else [points]
    cell = settle_cell(
        paper_id=paper_id,
        criterion=criterion,
        marks=marks,
        expected=1,
        resolution=(_CONSENSUS, points, "") if revised and points is not None else None,
    )
    if points is not None:
        cell.mark_rows = [(paper_id, criterion.pk, juror_id, points, scheme_version)]
    return cell


def juror_seed_rows(*, problem: Problem, juror, criteria: list[Criterion]) -> list[SeedRow]:
    """The juror's seeds in the problem, each with a cell per criterion holding the juror's
    own mark (as a submitted mark's row, named by the juror's username). One query."""
    sheet = Sheet.objects.submitted().filter(juror_id=juror.pk, problem_id=problem.pk)
    rows: dict[str, SeedRow] = {}
    values: dict[str, dict[int, tuple]] = {}
    for label, paper_id, criterion_id, points, scheme_version, revised in (
        CalibrationMark.objects.filter(
            seed__juror_id=juror.pk, seed__calibration_paper__round__problem_id=problem.pk
        )
        .annotate(revised=_revised_after_submitting(sheet))
        .values_list(
            "seed__label",
            "seed__calibration_paper__paper_id",
            "criterion_id",
            "points",
            "scheme_version",
            "revised",
        )
    ):
        rows.setdefault(label, SeedRow(paper_id=paper_id, label=label, cells={}))
        values.setdefault(label, {})[criterion_id] = (points, scheme_version, revised)
    names = {juror.pk: juror.username}
    for label, row in rows.items():
        for criterion in criteria:
            points, scheme_version, revised = values[label].get(criterion.pk, (None, 1, False))
            cell = _seed_cell(
                paper_id=row.paper_id,
                criterion=criterion,
                juror_id=juror.pk,
                points=points,
                scheme_version=scheme_version,
                revised=revised,
            )
            cell.juror_names = names
            row.cells[criterion.pk] = cell
    return list(rows.values())


# A seed's cell discussion: its one mark, shaped as the discussion page reads a paper's marks,
# and the consensus a revision made, shaped as a `Resolution` with its events.


@dataclass
class SeedMark:
    """The juror's mark on a seed as the discussion shows a paper's mark: on their live sheet."""

    pk: int
    points: Decimal | None
    note: str
    version: int
    sheet: Sheet


@dataclass
class SeedConsensusEvent:
    created_at: datetime
    actor: object
    old_kind: str
    old_points: Decimal | None
    new_kind: str
    new_points: Decimal
    reason: str = ""


@dataclass
class SeedConsensus:
    """What a paper graded by one juror records once that juror revises a submitted mark."""

    points: Decimal
    decided_by: object
    decided_at: datetime
    kind: str = _CONSENSUS
    reason: str = ""
    events: list[SeedConsensusEvent] = field(default_factory=list)

    def get_kind_display(self) -> str:
        return Resolution.Kind(self.kind).label


def _consensus(events, submitted_at) -> SeedConsensus | None:
    """The consensus the revisions after submitting made, event by event as `resolution_write`
    records them on a paper's cell; None when nothing was revised."""
    changes = [
        event
        for event in events
        if submitted_at
        and event.created_at > submitted_at
        and event.old_points != event.new_points
        and event.new_points is not None
    ]
    if not changes:
        return None
    history, before = [], None
    for event in changes:
        history.append(
            SeedConsensusEvent(
                created_at=event.created_at,
                actor=event.actor,
                old_kind=_CONSENSUS if before is not None else "",
                old_points=before,
                new_kind=_CONSENSUS,
                new_points=event.new_points,
            )
        )
        before = event.new_points
    last = changes[-1]
    return SeedConsensus(
        points=last.new_points, decided_by=last.actor, decided_at=last.created_at, events=history
    )


def seed_cell_discussion(
    *, problem: Problem, seed: Seed, criterion: Criterion, sheet: Sheet
) -> Discussion:
    """One (seed, criterion) for the seed's juror, as `cell_discussion` reads a paper graded by
    that juror alone: their mark with its history, no comments (a seed is discussed with no
    one), the consensus a revision made, the calibration paper's answers for the criterion's
    task(s) beside the official ones, and the answered questions asked on the seed's row."""
    paper = seed.calibration_paper.paper
    mark = CalibrationMark.objects.filter(seed=seed, criterion=criterion).first()
    events = list(mark.events.select_related("actor").order_by("created_at", "id")) if mark else []
    marks = (
        [
            SeedMark(
                pk=mark.pk, points=mark.points, note=mark.note, version=mark.version, sheet=sheet
            )
        ]
        if mark is not None and sheet.is_submitted
        else []
    )
    consensus = _consensus(events, sheet.submitted_at)
    cell = _seed_cell(
        paper_id=paper.pk,
        criterion=criterion,
        juror_id=sheet.juror_id,
        points=marks[0].points if marks else None,
        scheme_version=mark.scheme_version if mark else 1,
        revised=consensus is not None,
    )
    return Discussion(
        problem=problem,
        paper=paper,
        label=seed.label,
        criterion=criterion,
        cell=cell,
        marks=marks,
        events=events,
        comments=[],
        resolution=consensus,
        resolution_events=consensus.events if consensus else [],
        tasks=criterion_tasks(problem=problem, paper=paper, criterion=criterion),
        revised={mark.pk} if consensus else set(),
        help_notes=list(
            HelpRequest.objects.filter(seed=seed, answered_at__isnull=False).order_by(
                "answered_at", "id"
            )
        ),
        # A seed is its juror's alone.
        graders=1,
    )
