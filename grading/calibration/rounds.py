"""A problem's calibration round: created by the chair with its papers (2 to 5, shown as K1…),
its reference marks entered, opened to the jurors of the group, and closed, which opens the
problem's live grading. Each service refuses with a sentence and writes nothing when it does.

A round is "opened to the jurors" once it has their calibration sheets: until then its papers
may change and no juror sees it; from then its papers stay as they are."""

from collections.abc import Collection

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import ngettext

from grading.calibration import notices
from grading.calibration.seeds import seeds_draw
from grading.calibration.selectors import references_unfit, sheets_missing
from grading.models import (
    CalibrationMark,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    GradingGroup,
    Mark,
    PaperLabel,
    ReferenceMark,
    ReferenceMarkEvent,
)
from grading.rules import access
from grading.rules.phase import refuse_if_final_now
from grading.rules.refusals import WrongState
from rubrics.models import Contest, Criterion, Problem
from rubrics.validators import validate_points

MIN_PAPERS, MAX_PAPERS = 2, 5
NOTE_MAX_LENGTH = ReferenceMark._meta.get_field("note").max_length
WHAT = "its calibration rounds"


def _refuse_unless_leader(actor) -> None:
    access.require(
        access.may_lead_calibration(actor),
        "Only the chair or the organizer leads a calibration round.",
    )


def group_juror_ids(problem: Problem) -> list[int]:
    """The jurors of the problem's grading group, by id, but not one marked unavailable (they
    left: a round they cannot grade must not wait for them)."""
    group = GradingGroup.objects.filter(problem=problem).first()
    if group is None:
        return []
    present = group.jurors.exclude(juror_profile__unavailable_since__isnull=False)
    return sorted(present.values_list("pk", flat=True))


def round_opened_to_jurors(round_: CalibrationRound) -> bool:
    return round_.sheets.exists()


@transaction.atomic
def round_create(*, problem: Problem, labels: list[str], seeded: bool, actor) -> CalibrationRound:
    """Create the problem's calibration round with the papers of `labels` (the problem's
    labels, in the order given: K1, K2, …). Only before any live mark of the problem has
    points, while the contest is being set up or graded."""
    _refuse_unless_leader(actor)
    contest = refuse_if_final_now(problem.contest, WHAT)
    if contest.state not in (Contest.State.SETUP, Contest.State.GRADING):
        raise WrongState(
            f"{problem.code} can have a calibration round only before its grading: "
            f"{contest.name} is in its {contest.get_state_display().lower()} phase."
        )
    if CalibrationRound.objects.filter(problem=problem).exists():
        raise WrongState(f"{problem.code} has a calibration round already.")
    graded = Mark.objects.filter(criterion__problem=problem, points__isnull=False).count()
    if graded:
        raise WrongState(
            ngettext(
                "%(code)s has %(n)d live mark already: a calibration round comes before grading.",
                "%(code)s has %(n)d live marks already: a calibration round comes before grading.",
                graded,
            )
            % {"code": problem.code, "n": graded}
        )
    round_ = CalibrationRound.objects.create(problem=problem, seeded=seeded, created_by=actor)
    _papers_write(round_, labels)
    return round_


@transaction.atomic
def round_papers_set(*, round_: CalibrationRound, labels: list[str], actor) -> CalibrationRound:
    """Pick the round's papers again, until it is opened to the jurors (their reference
    marks go with the papers left out)."""
    round_ = _round_for_change(round_, actor)
    if round_opened_to_jurors(round_):
        raise WrongState(
            "The round is open to the jurors: its papers stay as they are until it closes."
        )
    _papers_write(round_, labels)
    return round_


@transaction.atomic
def round_seeded_set(*, round_: CalibrationRound, seeded: bool, actor) -> CalibrationRound:
    """Whether the round's papers come back as seeds in the live sheets once it closes."""
    round_ = _round_for_change(round_, actor)
    round_.seeded = seeded
    round_.save(update_fields=["seeded"])
    return round_


@transaction.atomic
def round_change(
    *, round_: CalibrationRound, labels: list[str] | None, seeded: bool, actor
) -> CalibrationRound:
    """The chair's change of the round from its page, all or nothing: its papers picked again
    (`round_papers_set`; None keeps them, as once the round is open to the jurors) and whether
    it is seeded (`round_seeded_set`)."""
    if labels is not None:
        round_ = round_papers_set(round_=round_, labels=labels, actor=actor)
    return round_seeded_set(round_=round_, seeded=seeded, actor=actor)


def _round_for_change(round_: CalibrationRound, actor) -> CalibrationRound:
    """The round read afresh with its row held, refused unless the actor leads rounds, the
    contest is not final and the round is still open."""
    _refuse_unless_leader(actor)
    refuse_if_final_now(round_.problem.contest, WHAT)
    round_ = (
        CalibrationRound.objects.select_for_update(of=("self",))
        .select_related("problem__contest")
        .get(pk=round_.pk)
    )
    if not round_.is_open:
        raise WrongState(
            f"The calibration round of {round_.problem.code} is closed; grading is open."
        )
    return round_


def _papers_write(round_: CalibrationRound, labels: list[str]) -> None:
    problem = round_.problem
    labels = [label.strip() for label in labels if label.strip()]
    if len(set(labels)) != len(labels):
        twice = sorted({label for label in labels if labels.count(label) > 1})
        raise ValidationError(f"Paper {', '.join(twice)} is picked twice; pick each paper once.")
    if not MIN_PAPERS <= len(labels) <= MAX_PAPERS:
        raise ValidationError(
            f"Pick {MIN_PAPERS} to {MAX_PAPERS} papers for the calibration round; "
            f"{len(labels)} {'is' if len(labels) == 1 else 'are'} picked."
        )
    links = {
        link.label: link for link in PaperLabel.objects.filter(problem=problem, label__in=labels)
    }
    unknown = [label for label in labels if label not in links]
    if unknown:
        raise ValidationError(
            f"{problem.code} has no paper labelled {', '.join(unknown)}; pick among its labels."
        )
    blank = [label for label in labels if links[label].blank]
    if blank:
        raise ValidationError(
            f"Paper {', '.join(blank)} left {problem.code} blank: a calibration paper needs an "
            "answer to grade."
        )
    keep = {paper.paper_id: paper for paper in round_.papers.all()}
    wanted = [links[label].paper_id for label in labels]
    round_.papers.exclude(paper_id__in=wanted).delete()
    # Labels are unique per round: clear the kept ones first, then number them afresh.
    CalibrationPaper.objects.filter(round=round_).update(label="")
    for position, paper_id in enumerate(wanted, start=1):
        paper = keep.get(paper_id) or CalibrationPaper(round=round_, paper_id=paper_id)
        paper.label = f"K{position}"
        paper.position = position
        paper.save()


def validate_reference_note(note: str | None, criterion: Criterion, *, where: str) -> None:
    """Refuse a reference note longer than the column holds; `where` names the paper."""
    length = len((note or "").strip())
    if length > NOTE_MAX_LENGTH:
        raise ValidationError(
            f"{where}, criterion {criterion.code}: the note is {length} characters long; "
            f"shorten it to {NOTE_MAX_LENGTH} at most."
        )


@transaction.atomic
def reference_set(
    *, calibration_paper: CalibrationPaper, criterion: Criterion, points, note: str, actor
) -> ReferenceMark:
    """The chair's reference points and note for one criterion of a calibration paper,
    validated as a mark is, while the round is open; a change is recorded (a
    `ReferenceMarkEvent`), an unchanged reference writes nothing."""
    round_ = _round_for_change(calibration_paper.round, actor)
    if criterion.problem_id != round_.problem_id:
        raise ValidationError(f"Criterion {criterion.code} is not {round_.problem.code}'s.")
    validate_points(points, criterion, where=f"Paper {calibration_paper.label}")
    validate_reference_note(note, criterion, where=f"Paper {calibration_paper.label}")
    note = (note or "").strip()
    reference = (
        ReferenceMark.objects.select_for_update()
        .filter(calibration_paper=calibration_paper, criterion=criterion)
        .first()
    )
    old_points, old_note = (None, "") if reference is None else (reference.points, reference.note)
    if reference is not None and (old_points, old_note) == (points, note):
        return reference
    if reference is None:
        reference = ReferenceMark(calibration_paper=calibration_paper, criterion=criterion)
    reference.points, reference.note = points, note
    reference.save()
    ReferenceMarkEvent.objects.create(
        reference=reference,
        actor=actor,
        old_points=old_points,
        new_points=points,
        old_note=old_note,
        new_note=note,
    )
    return reference


@transaction.atomic
def references_set(*, round_: CalibrationRound, entries, actor) -> int:
    """The reference grid as the chair saved it, all or nothing: `entries` are
    (calibration paper, criterion, points, note); the number of references that changed.
    The jurors who submitted their calibration sheet, and so compared their marks with the
    reference as it was, are told which references changed."""
    changed, told = 0, []
    for calibration_paper, criterion, points, note in entries:
        before = ReferenceMark.objects.filter(
            calibration_paper=calibration_paper, criterion=criterion
        ).first()
        if before is not None and (before.points, before.note) == (points, (note or "").strip()):
            continue
        if before is None and points is None and not (note or "").strip():
            continue
        reference_set(
            calibration_paper=calibration_paper,
            criterion=criterion,
            points=points,
            note=note,
            actor=actor,
        )
        changed += 1
        if before is not None:
            told.append(f"{calibration_paper.label} {criterion.code}")
    if told:
        submitted = round_.sheets.filter(state=CalibrationSheet.State.SUBMITTED)
        notices.notify_references_changed(
            problem=round_.problem,
            jurors=list(submitted.values_list("juror_id", flat=True)),
            cells=told,
        )
    return changed


def _refuse_if_references_unfit(round_: CalibrationRound, doing: str) -> None:
    unfit = references_unfit(round_)
    if unfit:
        raise ValidationError(
            ngettext(
                "%(n)d reference no longer fits the amended scheme (%(shown)s): re-enter it "
                "before %(doing)s.",
                "%(n)d references no longer fit the amended scheme (%(shown)s): re-enter them "
                "before %(doing)s.",
                len(unfit),
            )
            % {"n": len(unfit), "shown": "; ".join(unfit[:3]), "doing": doing}
        )


def missing_references(round_: CalibrationRound) -> list[str]:
    """The cells ("K1 A1") without reference points, in the grid's order."""
    criteria = list(Criterion.objects.for_problem(round_.problem))
    have = set(
        ReferenceMark.objects.filter(
            calibration_paper__round=round_, points__isnull=False
        ).values_list("calibration_paper_id", "criterion_id")
    )
    return [
        f"{paper.label} {criterion.code}"
        for paper in round_.papers.order_by("position")
        for criterion in criteria
        if (paper.pk, criterion.pk) not in have
    ]


@transaction.atomic
def round_open_to_jurors(*, round_: CalibrationRound, actor) -> CalibrationRound:
    """Open the round to the jurors of the group: each gets a calibration sheet (a blank
    calibration mark per paper and criterion) and a notice. Every paper needs a reference
    for every criterion first."""
    round_ = _round_for_change(round_, actor)
    code = round_.problem.code
    if round_opened_to_jurors(round_):
        raise WrongState(f"The calibration round of {code} is open to the jurors already.")
    missing = missing_references(round_)
    if missing:
        shown = ", ".join(missing[:6]) + (
            f" and {len(missing) - 6} more" if len(missing) > 6 else ""
        )
        raise ValidationError(
            ngettext(
                "%(n)d reference is missing (%(shown)s): give every paper a reference for "
                "every criterion before opening the round.",
                "%(n)d references are missing (%(shown)s): give every paper a reference for "
                "every criterion before opening the round.",
                len(missing),
            )
            % {"n": len(missing), "shown": shown}
        )
    _refuse_if_references_unfit(round_, "opening the round")
    jurors = group_juror_ids(round_.problem)
    if not jurors:
        raise ValidationError(f"{code}'s grading group has no juror yet: add its jurors first.")
    for juror_id in jurors:
        calibration_sheet_ensure(round_=round_, juror_id=juror_id)
    notices.notify_calibration_open(problem=round_.problem, jurors=jurors)
    return round_


def calibration_sheet_ensure(*, round_: CalibrationRound, juror_id: int) -> CalibrationSheet:
    """The juror's calibration sheet, with a blank calibration mark for every paper and
    criterion it lacks (a juror added to the group after the opening gets theirs here)."""
    sheet, _ = CalibrationSheet.objects.get_or_create(round=round_, juror_id=juror_id)
    criteria = list(Criterion.objects.for_problem(round_.problem))
    have = set(sheet.marks.values_list("calibration_paper_id", "criterion_id"))
    CalibrationMark.objects.bulk_create(
        CalibrationMark(
            sheet=sheet,
            calibration_paper=paper,
            criterion=criterion,
            scheme_version=round_.problem.scheme_version,
        )
        for paper in round_.papers.all()
        for criterion in criteria
        if (paper.pk, criterion.pk) not in have
    )
    return sheet


def names_text(names: list[str]) -> str:
    """ "bob", "bob and carol", "bob, carol and dan"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@transaction.atomic
def round_close(
    *, round_: CalibrationRound, actor, without: Collection[str] = ()
) -> CalibrationRound:
    """Close the round: the problem's live grading opens (`live_grading_waits` says no more),
    and every juror of the group is told. Calibration marks stay on record and count for
    nothing. A juror whose calibration sheet is not submitted can no longer submit it, so the
    round closes without them only if the chair named them in `without` (having seen them
    listed); otherwise it is refused, naming them."""
    round_ = _round_for_change(round_, actor)
    _refuse_if_references_unfit(round_, "closing the round")
    unconfirmed = [name for name in sheets_missing(round_) if name not in set(without)]
    if unconfirmed:
        raise ValidationError(
            ngettext(
                "%(names)s has not submitted a calibration sheet of %(code)s, and cannot once "
                "the round is closed: tick “Close the round without their sheets” to close it "
                "anyway.",
                "%(names)s have not submitted a calibration sheet of %(code)s, and cannot once "
                "the round is closed: tick “Close the round without their sheets” to close it "
                "anyway.",
                len(unconfirmed),
            )
            % {"names": names_text(unconfirmed), "code": round_.problem.code}
        )
    round_.state = CalibrationRound.State.CLOSED
    round_.grading_opened_at = timezone.now()
    round_.save(update_fields=["state", "grading_opened_at"])
    notices.notify_grading_opened(problem=round_.problem, jurors=group_juror_ids(round_.problem))
    # Seeded checks: in a seeded round, each calibration paper comes back in each juror's live
    # sheet under a fresh label (nothing for a round that is not seeded).
    seeds_draw(round_)
    return round_
