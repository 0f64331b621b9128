"""Amending a problem's scheme: `amendment_read` checks what a chair asks for and lists what it
would do (the page's preview), `scheme_amend` does it, in one transaction.

Before any mark is given under the scheme, its criteria just change. After, every amendment is
a new `SchemeVersion` with its reason and its changes; a change of a criterion's points, step or
tolerance reopens every mark with points of that criterion for its juror, who re-confirms or
re-marks it in their sheet. A mark is never rescaled: its points stay as its juror gave them
(one whose points no longer fit the new criterion waits for its juror to re-mark it).

The calibration marks of that criterion reopen as well: those of the jurors' calibration
sheets while the problem's round is open (submitted or not), and those of the seeds in their
live sheets. The chair's reference marks that no longer fit the new criterion are listed, to
re-enter before the round opens to the jurors or closes."""

from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from grading.models import (
    Assignment,
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationRound,
    Mark,
    MarkEvent,
    PaperLabel,
    ReferenceMark,
)
from grading.rules import access
from grading.rules.domain import points_text
from grading.rules.phase import refuse_if_final_now
from grading.rules.schemes import AMENDABLE_FIELDS, MARKED_FIELDS, criteria_under_marks
from grading.schemes import notices
from rubrics.models import Criterion, Problem, SchemeVersion
from rubrics.validators import points_refusal, tolerance_refusal, validate_points

TITLE_MAX_LENGTH = Criterion._meta.get_field("title").max_length
# The digits each field holds (max_digits, decimal places), as the database stores them.
_DIGITS = {"points": (6, 2), "step": (5, 2), "tolerance": (5, 2)}


@dataclass(frozen=True)
class ReopenedMark:
    """A mark an amendment reopens, named as the chair's preview names it."""

    mark_id: int
    juror_id: int
    juror: str
    label: str
    code: str
    points: Decimal
    # Why the amended criterion no longer takes its points (above the new maximum, off the
    # new step), or "": Enter cannot re-confirm such a mark, its juror types new points.
    unfit: str = ""


@dataclass(frozen=True)
class ReopenedCalibrationMark:
    """A calibration mark an amendment reopens: in the juror's calibration sheet (`label` is
    the paper's calibration label, K1…) or on a seed (`label` is the seed's label in the
    juror's live sheet, never the paper's)."""

    mark_id: int
    juror_id: int
    juror: str
    label: str
    code: str
    points: Decimal
    seed: bool
    unfit: str = ""

    @property
    def where(self) -> str:
        return "live sheet (seed)" if self.seed else "calibration sheet"


@dataclass(frozen=True)
class ReferenceToReenter:
    """A reference mark of the open calibration round whose points no longer fit the amended
    criterion: the chair enters it again before the round opens to the jurors or closes."""

    label: str
    code: str
    points: Decimal
    why: str


@dataclass
class SchemeAmendment:
    """What an amendment changes (one entry per criterion and field, values as text, as
    `SchemeVersion.changes` records them) and the marks it reopens."""

    problem: Problem
    reason: str
    changes: list[dict]
    # Whether marks are given under the scheme: then the amendment is a new version.
    under_marks: bool
    reopening: list[ReopenedMark] = field(default_factory=list)
    reopening_calibration: list[ReopenedCalibrationMark] = field(default_factory=list)
    references_to_reenter: list[ReferenceToReenter] = field(default_factory=list)

    @property
    def unfit(self) -> int:
        """The reopened marks, live and calibration, that the amended criteria no longer take."""
        return sum(1 for mark in self.reopening + self.reopening_calibration if mark.unfit)

    @property
    def reopens_marks(self) -> bool:
        return any(change["field"] in MARKED_FIELDS for change in self.changes)

    @property
    def version(self) -> int | None:
        """The version the amendment makes, or None when the criteria just change."""
        return self.problem.scheme_version + 1 if self.under_marks else None


def _text(value) -> str:
    return points_text(value) if isinstance(value, Decimal) else str(value)


def _decimal(raw, *, code: str, name: str, errors: list[str]) -> Decimal | None:
    try:
        value = raw if isinstance(raw, Decimal) else Decimal(str(raw).strip().replace(",", "."))
    except InvalidOperation:
        errors.append(f"Criterion {code}: the {name} “{raw}” is not a number.")
        return None
    if not value.is_finite():
        errors.append(f"Criterion {code}: the {name} “{raw}” is not a number.")
        return None
    digits, places = _DIGITS[name]
    too_fine = value.normalize().as_tuple().exponent < -places
    if too_fine or abs(value) >= 10 ** (digits - places):
        errors.append(
            f"Criterion {code}: the {name} {_text(value)} has more than {places} decimals "
            f"or more than {digits - places} digits before the point."
        )
        return None
    return value


def _checked(criterion: Criterion, wanted: dict, errors: list[str]) -> dict:
    """The criterion's fields as the amendment wants them (its own where not given), each
    checked with a sentence naming the criterion and the field."""
    code = criterion.code
    unknown = sorted(set(wanted) - set(AMENDABLE_FIELDS))
    if unknown:
        errors.append(f"Criterion {code}: {', '.join(unknown)} cannot be amended here.")
    values = {name: getattr(criterion, name) for name in AMENDABLE_FIELDS}
    for name in ("title", "guidance"):
        if name in wanted:
            values[name] = str(wanted[name] or "").strip()
    if not values["title"]:
        errors.append(f"Criterion {code}: the title cannot be blank.")
    elif len(values["title"]) > TITLE_MAX_LENGTH:
        errors.append(f"Criterion {code}: the title is longer than {TITLE_MAX_LENGTH} characters.")
    for name in MARKED_FIELDS:
        if name in wanted:
            values[name] = _decimal(wanted[name], code=code, name=name, errors=errors)
    points, step, tolerance = values["points"], values["step"], values["tolerance"]
    if points is not None and points <= 0:
        errors.append(f"Criterion {code}: the points must be more than 0, not {_text(points)}.")
    if step is not None and step <= 0:
        errors.append(f"Criterion {code}: the step must be more than 0, not {_text(step)}.")
    if tolerance is not None and tolerance < 0:
        errors.append(f"Criterion {code}: the tolerance cannot be negative ({_text(tolerance)}).")
    elif points and points > 0 and (refusal := tolerance_refusal(points, tolerance)):
        errors.append(f"Criterion {code}: {refusal}.")
    if points and step and points > 0 and step > 0 and points % step != 0:
        errors.append(
            f"Criterion {code}: {_text(points)} points is not a multiple of the step {_text(step)}."
        )
    return values


def amendment_read(problem: Problem, *, changes: dict[str, dict], reason: str) -> SchemeAmendment:
    """Check an amendment of the problem's criteria (`changes`: criterion code → field → new
    value, for title, guidance, points, step and tolerance) and say what it would do, writing
    nothing. Raises one `ValidationError` listing every sentence at once. Five queries at
    most (the marks, calibration marks and references it would reopen or leave unfit)."""
    criteria = list(Criterion.objects.for_problem(problem))
    by_code = {criterion.code: criterion for criterion in criteria}
    errors = [
        f"Criterion {code} is not in the scheme of {problem.code}."
        for code in sorted(set(changes) - set(by_code))
    ]
    diffs, new_points, new_values = [], {}, {}
    for criterion in criteria:
        values = _checked(criterion, changes.get(criterion.code, {}), errors)
        new_points[criterion.code] = values["points"]
        new_values[criterion.code] = values
        for name in AMENDABLE_FIELDS:
            old, new = getattr(criterion, name), values[name]
            if new is not None and old != new:
                diffs.append(
                    {
                        "criterion": criterion.code,
                        "field": name,
                        "old": _text(old),
                        "new": _text(new),
                    }
                )
    if all(points is not None for points in new_points.values()):
        total = sum(new_points.values(), Decimal(0))
        if total != problem.max_points:
            errors.append(
                f"The criteria would add up to {_text(total)} points, but {problem.code} is worth "
                f"{_text(problem.max_points)}: move points between criteria so that they still "
                "add up."
            )
    reason = (reason or "").strip()
    if not reason:
        errors.append(
            "Give a reason for the amendment: the jurors read it with the notice and beside "
            "the marks it reopens."
        )
    if not errors and not diffs:
        errors.append(f"Nothing would change in the scheme of {problem.code}.")
    if errors:
        raise ValidationError(errors)
    under_marks = bool(criteria_under_marks(Criterion.objects.filter(problem=problem)))
    amendment = SchemeAmendment(
        problem=problem, reason=reason, changes=diffs, under_marks=under_marks
    )
    if under_marks and amendment.reopens_marks:
        codes = {change["criterion"] for change in diffs if change["field"] in MARKED_FIELDS}
        marked = [by_code[code] for code in codes]
        amended = {code: _amended(by_code[code], new_values[code]) for code in codes}
        amendment.reopening = _with_unfit(_marks_reopened(problem, marked), amended)
        amendment.reopening_calibration = _with_unfit(
            _calibration_marks_reopened(problem, marked), amended
        )
        amendment.references_to_reenter = _references_to_reenter(problem, list(amended.values()))
    return amendment


def _with_unfit(marks: list, amended: dict[str, Criterion]) -> list:
    """The reopened marks, each with why the amended criterion no longer takes its points
    (`points_refusal`, which refuses their re-confirmation too), or "" where it still does."""
    return [replace(mark, unfit=points_refusal(mark.points, amended[mark.code])) for mark in marks]


def _amended(criterion: Criterion, values: dict) -> Criterion:
    """An unsaved copy of the criterion with the amendment's values, to check points against."""
    copy = Criterion(pk=criterion.pk, problem_id=criterion.problem_id, code=criterion.code)
    for name in MARKED_FIELDS:
        setattr(copy, name, values[name])
    return copy


def _calibration_marks_reopened(
    problem: Problem, criteria: list[Criterion]
) -> list[ReopenedCalibrationMark]:
    """The calibration marks with points of the criteria that wait for their jurors again: in
    the calibration sheets of the problem's round while it is open (a closed round's sheets
    are read-only for good), and on the seeds in the live sheets. By juror, label and
    criterion. One query."""
    open_sheet = Q(sheet__round__problem=problem, sheet__round__state=CalibrationRound.State.OPEN)
    on_seed = Q(seed__calibration_paper__round__problem=problem)
    rows = (
        CalibrationMark.objects.filter(criterion__in=criteria, points__isnull=False)
        .filter(open_sheet | on_seed)
        .annotate(
            juror_id=Coalesce("sheet__juror_id", "seed__juror_id"),
            juror_name=Coalesce("sheet__juror__username", "seed__juror__username"),
            shown_label=Coalesce("seed__label", "calibration_paper__label"),
        )
        .values_list(
            "pk",
            "juror_id",
            "juror_name",
            "shown_label",
            "criterion__code",
            "points",
            "seed_id",
        )
    )
    order = {criterion.code: (criterion.order, criterion.code) for criterion in criteria}
    marks = [
        ReopenedCalibrationMark(pk, juror_id, juror, label, code, points, seed_id is not None)
        for pk, juror_id, juror, label, code, points, seed_id in rows
    ]
    return sorted(marks, key=lambda m: (m.juror, m.seed, m.label, order[m.code]))


def _references_to_reenter(problem: Problem, amended: list[Criterion]) -> list[ReferenceToReenter]:
    """The reference marks of the problem's open round whose points the amended criteria no
    longer allow (`validate_points`), by paper and criterion. One query."""
    by_id = {criterion.pk: criterion for criterion in amended}
    references = ReferenceMark.objects.filter(
        calibration_paper__round__problem=problem,
        calibration_paper__round__state=CalibrationRound.State.OPEN,
        criterion_id__in=by_id,
        points__isnull=False,
    ).values_list("calibration_paper__label", "criterion_id", "points")
    unfit = []
    for label, criterion_id, points in references:
        try:
            validate_points(points, by_id[criterion_id], where=f"Reference of {label}")
        except ValidationError as error:
            unfit.append(
                ReferenceToReenter(label, by_id[criterion_id].code, points, error.messages[0])
            )
    return sorted(unfit, key=lambda r: (r.label, r.code))


def _marks_reopened(problem: Problem, criteria: list[Criterion]) -> list[ReopenedMark]:
    """The live marks with points of the criteria, of papers still assigned to their juror
    (a mark moved away counts for nothing and its juror no longer sees it), by juror, paper
    label and criterion. One query."""
    label = PaperLabel.objects.filter(paper_id=OuterRef("paper_id"), problem=problem).values(
        "label"
    )[:1]
    still_assigned = Assignment.objects.filter(
        paper=OuterRef("paper_id"), problem=problem, juror=OuterRef("sheet__juror_id")
    )
    rows = (
        Mark.objects.filter(criterion__in=criteria, points__isnull=False)
        .filter(Exists(still_assigned))
        .annotate(label=Subquery(label))
        .values_list(
            "pk", "sheet__juror_id", "sheet__juror__username", "label", "criterion__code", "points"
        )
    )
    order = {criterion.code: (criterion.order, criterion.code) for criterion in criteria}
    marks = [ReopenedMark(*row) for row in rows]
    return sorted(marks, key=lambda m: (m.juror, m.label or "", order[m.code]))


@transaction.atomic
def scheme_amend(
    problem: Problem, *, changes: dict[str, dict], reason: str, actor
) -> SchemeVersion | None:
    """Amend the problem's scheme as `amendment_read` checks it: the criteria change; once
    marks exist, as a new version (returned) that records the changes, reopens the marks a
    change of points, step or tolerance affects (each with a MarkEvent on the scheme's channel,
    its points unchanged) and tells the group. Refused for a final contest."""
    access.require(
        access.may_amend_scheme(actor), "Only the chair or an organizer amends a scheme."
    )
    refuse_if_final_now(problem.contest, what="its grading schemes")
    # The problem's row is held, so that two amendments never make the same version.
    problem = Problem.objects.select_for_update().select_related("contest").get(pk=problem.pk)
    amendment = amendment_read(problem, changes=changes, reason=reason)
    _criteria_change(problem, amendment.changes)
    if not amendment.under_marks:
        return None
    version = SchemeVersion.objects.create(
        problem=problem,
        number=amendment.version,
        reason=amendment.reason,
        changes=amendment.changes,
        reopens_marks=amendment.reopens_marks,
        created_by=actor,
    )
    Problem.objects.filter(pk=problem.pk).update(scheme_version=version.number)
    problem.scheme_version = version.number
    _marks_reopen(amendment.reopening, version=version, actor=actor)
    _calibration_marks_reopen(amendment.reopening_calibration, version=version, actor=actor)
    notices.notify_scheme_amended(problem=problem, version=version, actor=actor)
    # A seed is a row like any other in the juror's live sheet: its reopened marks are told
    # with the live ones, so that the notice never tells the seed apart.
    seeds = [mark for mark in amendment.reopening_calibration if mark.seed]
    notices.notify_marks_reopened(
        problem=problem, version=version, marks=amendment.reopening + seeds
    )
    notices.notify_calibration_marks_reopened(
        problem=problem,
        version=version,
        marks=[mark for mark in amendment.reopening_calibration if not mark.seed],
    )
    return version


def _criteria_change(problem: Problem, changes: list[dict]) -> None:
    by_code: dict[str, dict] = {}
    for change in changes:
        by_code.setdefault(change["criterion"], {})[change["field"]] = change["new"]
    for criterion in Criterion.objects.filter(problem=problem, code__in=by_code):
        fields = by_code[criterion.code]
        for name, value in fields.items():
            setattr(criterion, name, Decimal(value) if name in MARKED_FIELDS else value)
        criterion.save(update_fields=sorted(fields))


def _marks_reopen(marks: list[ReopenedMark], *, version: SchemeVersion, actor) -> None:
    """Reopen the live marks (`_reopen`)."""
    _reopen(Mark, MarkEvent, [mark.mark_id for mark in marks], version=version, actor=actor)


def _calibration_marks_reopen(
    marks: list[ReopenedCalibrationMark], *, version: SchemeVersion, actor
) -> None:
    """Reopen the calibration marks (`_reopen`), with CalibrationMarkEvents."""
    ids = [mark.mark_id for mark in marks]
    _reopen(CalibrationMark, CalibrationMarkEvent, ids, version=version, actor=actor)


def _reopen(model, event_model, ids: list[int], *, version: SchemeVersion, actor) -> None:
    """Reopen marks of `model` (a live or a calibration mark): each keeps its points (never
    rescaled), waits for its juror, and its history (`event_model`) records the amendment on
    the scheme's channel. Three queries whatever their number."""
    if not ids:
        return
    current = {
        pk: (points, note, number)
        for pk, points, note, number in model.objects.filter(pk__in=ids).values_list(
            "pk", "points", "note", "version"
        )
    }
    now = timezone.now()
    model.objects.filter(pk__in=ids).update(
        reopened_by=version, version=F("version") + 1, updated_at=now
    )
    event_model.objects.bulk_create(
        event_model(
            mark_id=pk,
            actor=actor,
            channel=MarkEvent.Channel.SCHEME,
            old_points=points,
            new_points=points,
            old_note=note,
            new_note=note,
            version=number + 1,
            created_at=now,
        )
        for pk, (points, note, number) in current.items()
    )
