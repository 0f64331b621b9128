"""A problem's calibration round: created by the chair with its papers (2 to 5 graded in it,
shown as K1…, and up to 5 kept out of it for seeding, numbered after them), its reference
marks entered, opened to the jurors of the group, and closed, which opens the problem's live
grading (and, in a seeded round, brings the papers kept for seeding into the live sheets as
seeds). Each service refuses with a sentence and writes nothing when it does.

A round is "opened to the jurors" once it has their calibration sheets: until then its papers
may change and no juror sees it; from then the papers graded in it stay as they are, and only
the papers kept for seeding, which no juror sees in it, may change."""

from collections.abc import Collection, Sequence

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import CharField, Value
from django.db.models.functions import Cast, Concat
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
MAX_KEPT = 5
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
def round_create(
    *, problem: Problem, labels: list[str], seeded: bool, actor, kept: Sequence[str] = ()
) -> CalibrationRound:
    """Create the problem's calibration round with the papers of `labels` graded in it (the
    problem's labels, in the order given: K1, K2, …) and those of `kept` kept out of it for
    seeding (numbered after them). Only before any live mark of the problem has points, while
    the contest is being set up or graded."""
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
    _papers_write(round_, labels, kept)
    return round_


@transaction.atomic
def round_papers_set(
    *, round_: CalibrationRound, labels: list[str] | None, actor, kept: Sequence[str] = ()
) -> CalibrationRound:
    """Pick the round's papers again: those graded in it (`labels`) until it is opened to the
    jurors (None keeps them), and those kept out of it for seeding (`kept`) while it is open,
    since no juror sees them before they come back as seeds. Their reference marks go with
    the papers left out."""
    round_ = _round_for_change(round_, actor)
    graded = _graded_labels(round_)
    if labels is None:
        labels = graded
    elif round_opened_to_jurors(round_) and list(labels) != graded:
        raise WrongState(
            "The round is open to the jurors: the papers graded in it stay as they are until "
            "it closes; only the papers kept for seeding may change."
        )
    _papers_write(round_, labels, kept)
    return round_


def _graded_labels(round_: CalibrationRound) -> list[str]:
    """The live labels of the papers graded in the round, in their order (K1, K2, …)."""
    papers = list(
        round_.papers.graded_in_round().order_by("position").values_list("paper_id", flat=True)
    )
    label_of = dict(
        PaperLabel.objects.filter(problem_id=round_.problem_id, paper_id__in=papers).values_list(
            "paper_id", "label"
        )
    )
    return [label_of[paper_id] for paper_id in papers]


@transaction.atomic
def round_seeded_set(*, round_: CalibrationRound, seeded: bool, actor) -> CalibrationRound:
    """Whether the round's papers come back as seeds in the live sheets once it closes."""
    round_ = _round_for_change(round_, actor)
    round_.seeded = seeded
    round_.save(update_fields=["seeded"])
    return round_


@transaction.atomic
def round_change(
    *,
    round_: CalibrationRound,
    labels: list[str] | None,
    seeded: bool,
    actor,
    kept: Sequence[str] = (),
) -> CalibrationRound:
    """The chair's change of the round from its page, all or nothing: its papers picked again
    (`round_papers_set`: the papers graded in it, None keeping them, as once the round is open
    to the jurors, and the papers kept for seeding) and whether it is seeded
    (`round_seeded_set`)."""
    round_ = round_papers_set(round_=round_, labels=labels, kept=kept, actor=actor)
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


def _papers_write(round_: CalibrationRound, labels: list[str], kept: Sequence[str]) -> None:
    """The round's papers as picked: those of `labels` graded in it (K1, K2, … in the order
    given), then those of `kept` kept out of it for seeding, numbered after them. A paper
    kept before keeps its reference marks, whichever side it is on now."""
    problem = round_.problem
    labels = [label.strip() for label in labels if label.strip()]
    kept = [label.strip() for label in kept if label.strip()]
    both = sorted(set(labels) & set(kept))
    if both:
        raise ValidationError(
            f"Paper {', '.join(both)} is picked both to grade in the round and to keep for "
            "seeding: a seed must be a paper its juror never saw, so pick it for one or the "
            "other."
        )
    picked = labels + kept
    if len(set(picked)) != len(picked):
        twice = sorted({label for label in picked if picked.count(label) > 1})
        raise ValidationError(f"Paper {', '.join(twice)} is picked twice; pick each paper once.")
    if not MIN_PAPERS <= len(labels) <= MAX_PAPERS:
        raise ValidationError(
            f"Pick {MIN_PAPERS} to {MAX_PAPERS} papers for the calibration round; "
            f"{len(labels)} {'is' if len(labels) == 1 else 'are'} picked."
        )
    if len(kept) > MAX_KEPT:
        raise ValidationError(
            f"Keep at most {MAX_KEPT} papers out of the round for seeding; {len(kept)} are picked."
        )
    links = {
        link.label: link for link in PaperLabel.objects.filter(problem=problem, label__in=picked)
    }
    unknown = [label for label in picked if label not in links]
    if unknown:
        raise ValidationError(
            f"{problem.code} has no paper labelled {', '.join(unknown)}; pick among its labels."
        )
    blank = [label for label in picked if links[label].blank]
    if blank:
        raise ValidationError(
            f"Paper {', '.join(blank)} left {problem.code} blank: a calibration paper needs an "
            "answer to grade."
        )
    had = {paper.paper_id: paper for paper in round_.papers.all()}
    wanted = [(links[label].paper_id, label in kept) for label in picked]
    round_.papers.exclude(paper_id__in=[paper_id for paper_id, _ in wanted]).delete()
    # Labels are unique per round: give the remaining ones a placeholder each (unique, as
    # their ids are) first, then number them afresh.
    CalibrationPaper.objects.filter(round=round_).update(
        label=Concat(Value("~"), Cast("pk", output_field=CharField()))
    )
    for position, (paper_id, for_seeding) in enumerate(wanted, start=1):
        paper = had.get(paper_id) or CalibrationPaper(round=round_, paper_id=paper_id)
        paper.label = f"K{position}"
        paper.position = position
        paper.for_seeding = for_seeding
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
    reference as it was, are told which references of the papers graded in the round
    changed."""
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
        # A paper kept for seeding is no juror's to hear of: they never saw it in the round.
        if before is not None and not calibration_paper.for_seeding:
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


def missing_references(round_: CalibrationRound, *, kept_only: bool = False) -> list[str]:
    """The cells ("K1 A1") without reference points, in the grid's order; with `kept_only`,
    of the papers kept for seeding alone."""
    criteria = list(Criterion.objects.for_problem(round_.problem))
    have = set(
        ReferenceMark.objects.filter(
            calibration_paper__round=round_, points__isnull=False
        ).values_list("calibration_paper_id", "criterion_id")
    )
    papers = round_.papers.kept_for_seeding() if kept_only else round_.papers.all()
    return [
        f"{paper.label} {criterion.code}"
        for paper in papers.order_by("position")
        for criterion in criteria
        if (paper.pk, criterion.pk) not in have
    ]


@transaction.atomic
def round_open_to_jurors(*, round_: CalibrationRound, actor) -> CalibrationRound:
    """Open the round to the jurors of the group: each gets a calibration sheet (a blank
    calibration mark per paper graded in the round and criterion) and a notice. Every paper,
    kept for seeding or not, needs a reference for every criterion first."""
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
    """The juror's calibration sheet, with a blank calibration mark for every paper graded in
    the round and criterion it lacks (a juror added to the group after the opening gets
    theirs here). A paper kept for seeding gets none: no juror sees it in the round."""
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
        for paper in round_.papers.graded_in_round()
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
    if round_.seeded:
        _refuse_if_kept_references_missing(round_)
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
    # Seeded checks: in a seeded round, each paper kept out of it for seeding comes in each
    # juror's live sheet under a fresh label (nothing for a round that is not seeded or keeps
    # no paper for seeding).
    seeds_draw(round_)
    return round_


def _refuse_if_kept_references_missing(round_: CalibrationRound) -> None:
    """A paper kept for seeding after the round opened to the jurors needs its reference
    before the seeds are drawn from it: a seed is read against it."""
    missing = missing_references(round_, kept_only=True)
    if missing:
        raise ValidationError(
            ngettext(
                "%(n)d reference of the papers kept for seeding is missing (%(shown)s): give "
                "it before closing the round, as the seeds are read against it.",
                "%(n)d references of the papers kept for seeding are missing (%(shown)s): give "
                "them before closing the round, as the seeds are read against them.",
                len(missing),
            )
            % {"n": len(missing), "shown": ", ".join(missing[:6])}
        )
