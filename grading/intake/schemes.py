"""Grading-scheme files: one TOML file per problem, `<folder>/p<N>.toml`, listing the problem's
criteria in the order jurors see them. Everything is read and checked before anything is written.

Once marks are given under a problem's scheme (`rules.schemes`: live, calibration or reference
marks), its criteria change only as a new version from the problem's "Amend the scheme" page
(`grading.schemes`), which tells the group and reopens the marks a change of points, step or
tolerance affects: a file that changes a criterion's title, guidance, points, step or tolerance
then is refused, listing the live marks it would affect by their anonymous paper label."""

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.urls import reverse
from django.utils.translation import ngettext

from grading.intake.scheme_files import CRITERION_FIELDS, SchemeSpec, schemes_read
from grading.marking.sheets import sheet_get_or_create
from grading.models import CalibrationMark, Mark, PaperLabel, ReferenceMark, Sheet
from grading.rules.domain import points_text, points_with_word
from grading.rules.phase import refuse_if_final_now
from grading.rules.schemes import AMENDABLE_FIELDS, MARKED_FIELDS, criteria_under_marks
from rubrics.models import Contest, Criterion


@dataclass(frozen=True)
class _Guard:
    """A change refused while marks exist: `refused` and `alternative` frame the sentence that
    lists the criterion's live marks (blank ones with history too when `history_counts`);
    `otherwise` is the sentence when no live mark is there to list but the change is refused
    all the same (marks of a calibration round, or of the scheme's other criteria), or None
    when the change may then go ahead. A wording change does not touch marks: its refusal
    (`lists_marks` false) lists none."""

    refused: str
    alternative: str
    criterion_id: int
    history_counts: bool
    otherwise: str | None = None
    lists_marks: bool = True


@dataclass
class ProblemChange:
    """What loading one file does (or would do) to its problem."""

    file: str
    number: int
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problem_fields: list[str] = field(default_factory=list)

    @property
    def unchanged(self) -> bool:
        return not (self.created or self.updated or self.removed or self.problem_fields)

    def __str__(self) -> str:
        if self.unchanged:
            return f"{self.file}: problem {self.number} unchanged."
        parts = []
        for verb, codes in (
            ("created", self.created),
            ("updated", self.updated),
            ("removed", self.removed),
        ):
            if codes:
                parts.append(f"{verb} {', '.join(codes)}")
        if self.problem_fields:
            parts.append(f"problem {' and '.join(self.problem_fields)} updated")
        return f"{self.file}: problem {self.number}: {'; '.join(parts)}."


@dataclass
class SchemeLoadSummary:
    contest: str
    problems: list[ProblemChange]
    dry_run: bool = False

    @property
    def unchanged(self) -> bool:
        return all(change.unchanged for change in self.problems)

    def count(self, what: str) -> int:
        return sum(len(getattr(change, what)) for change in self.problems)

    def __str__(self) -> str:
        n_files = len(self.problems)
        files = ngettext("%d scheme file", "%d scheme files", n_files) % n_files
        if self.unchanged:
            return f"{files} for {self.contest} checked: all unchanged, nothing written."
        changed = sum(1 for change in self.problems if not change.unchanged)
        created = self.count("created")
        counts = (
            f"{ngettext('%d criterion', '%d criteria', created) % created} created, "
            f"{self.count('updated')} updated, {self.count('removed')} removed "
            f"in {ngettext('%d problem', '%d problems', changed) % changed}"
        )
        if self.dry_run:
            return f"Dry run, nothing written: {files} for {self.contest} would leave {counts}."
        return f"{files} for {self.contest} loaded: {counts}."


@transaction.atomic
def scheme_load(
    *, contest: Contest, directory: Path | str, dry_run: bool = False
) -> SchemeLoadSummary:
    """Create or update the criteria of each problem that has a file in `directory`.

    A criterion missing from its file is removed. Kind, task and order may change at any time;
    title, guidance, points, step and tolerance only until marks are given under the problem's
    scheme (then from the "Amend the scheme" page, as a new version). A criterion with marks, or
    in a calibration round, is never removed. A refusal lists the live marks concerned by
    problem, paper label, juror and criterion. An unchanged scheme writes nothing. A final
    contest's schemes are read-only (`ContestFinal`), on a dry run too."""
    contest = refuse_if_final_now(contest, what="its grading schemes")
    specs = schemes_read(contest=contest, directory=directory)
    problems = [spec.problem for spec in specs]
    existing: dict[int, dict[str, Criterion]] = defaultdict(dict)
    for criterion in Criterion.objects.filter(problem__in=problems):
        existing[criterion.problem_id][criterion.code] = criterion

    @cache
    def under_marks() -> set[int]:
        # The problems with marks under their scheme; asked only when a file changes criteria.
        criteria = criteria_under_marks(Criterion.objects.filter(problem__in=problems))
        return {
            criterion.problem_id
            for current in existing.values()
            for criterion in current.values()
            if criterion.pk in criteria
        }

    changes: list[ProblemChange] = []
    guarded: list[_Guard] = []
    for spec in specs:
        problem = spec.problem
        change = ProblemChange(file=spec.file, number=problem.number)
        if spec.title is not None and spec.title != problem.title:
            change.problem_fields.append("title")
        if spec.language is not None and spec.language != problem.language:
            change.problem_fields.append("language")
        current = existing[problem.pk]
        amend_page = (
            f"the problem's “Amend the scheme” page "
            f"({reverse('scheme', args=[contest.slug, problem.number])})"
        )
        for criterion_spec in spec.criteria:
            criterion = current.get(criterion_spec.code)
            if criterion is None:
                change.created.append(criterion_spec.code)
                continue
            differing = [
                name
                for name, value in criterion_spec.values().items()
                if getattr(criterion, name) != value
            ]
            if differing:
                change.updated.append(criterion_spec.code)
            amended = [name for name in AMENDABLE_FIELDS if name in differing]
            if amended and problem.pk in under_marks():
                guarded.append(
                    _amendment_guard(spec, criterion, criterion_spec, amended, amend_page)
                )
        wanted = {criterion_spec.code for criterion_spec in spec.criteria}
        for code, criterion in current.items():
            if code not in wanted:
                change.removed.append(code)
                guarded.append(
                    _Guard(
                        f"{spec.file}: cannot remove criterion {code}",
                        "or keep the criterion",
                        criterion.pk,
                        True,
                    )
                )
        changes.append(change)

    _refuse_marked(guarded, contest)
    summary = SchemeLoadSummary(contest=contest.slug, problems=changes, dry_run=dry_run)
    if dry_run or summary.unchanged:
        return summary
    for spec, change in zip(specs, changes, strict=True):
        if not change.unchanged:
            _apply(spec, change, existing[spec.problem.pk])
    return summary


def _amendment_guard(
    spec: SchemeSpec, criterion: Criterion, wanted, amended: list[str], amend_page: str
) -> _Guard:
    """The refusal of a change of the criterion's `amended` fields (to their values in `wanted`,
    the file's criterion) under marks: listing its live marks when a change of points, step or
    tolerance would reopen them, in one sentence otherwise."""
    marked = [name for name in MARKED_FIELDS if name in amended]
    what = " and ".join(
        f"the {name} from {points_text(getattr(criterion, name))} to "
        f"{points_text(getattr(wanted, name))}"
        if name in MARKED_FIELDS
        else f"the {name}"
        for name in amended
    )
    refused = f"{spec.file}, criterion {criterion.code}: cannot change {what}"
    does = "reopens the marks it affects for their jurors" if marked else "tells the group"
    otherwise = (
        f"{refused} while marks are given under the scheme of problem {spec.problem.number}; "
        f"keep it as it was, or amend the scheme from {amend_page}, which makes a new version "
        f"and {does}."
    )
    if not marked:
        return _Guard(refused, "", criterion.pk, False, otherwise=otherwise, lists_marks=False)
    return _Guard(
        refused,
        f"or keep the scheme as it was, or amend the scheme from {amend_page}, which makes a new "
        "version and reopens these marks for their jurors",
        criterion.pk,
        False,
        otherwise=otherwise,
    )


def _apply(spec: SchemeSpec, change: ProblemChange, current: dict[str, Criterion]) -> None:
    problem = spec.problem
    if change.problem_fields:
        if spec.title is not None:
            problem.title = spec.title
        if spec.language is not None:
            problem.language = spec.language
        problem.save(update_fields=change.problem_fields)
    removed = [current[code].pk for code in change.removed]
    if removed:
        # Only blank marks without history are left here (see scheme_load); they were
        # placeholders made by sheet_get_or_create, and Mark.criterion protects the criterion.
        Mark.objects.filter(criterion_id__in=removed).delete()
        Criterion.objects.filter(pk__in=removed).delete()
    for criterion_spec in spec.criteria:
        criterion = current.get(criterion_spec.code)
        if criterion is None:
            Criterion.objects.create(
                problem=problem, code=criterion_spec.code, **criterion_spec.values()
            )
        elif criterion_spec.code in change.updated:
            for name, value in criterion_spec.values().items():
                setattr(criterion, name, value)
            criterion.save(update_fields=list(CRITERION_FIELDS))
    if change.created:
        # Sheets already handed out get a blank mark for each new criterion.
        for sheet in Sheet.objects.filter(problem=problem).select_related("juror"):
            sheet_get_or_create(juror=sheet.juror, problem=problem)


def _refuse_marked(guarded: list[_Guard], contest: Contest) -> None:
    """Raise a ValidationError listing, under each refused change, the marks it would affect.
    A criterion to remove that a calibration round holds marks of (blank ones too) is refused
    with the round named: its calibration marks keep it."""
    if not guarded:
        return
    ids = [guard.criterion_id for guard in guarded]
    marks = (
        Mark.objects.filter(criterion_id__in=ids)
        .select_related("sheet__juror", "criterion__problem")
        .annotate(changes=Count("events"))
        .order_by("criterion__problem__number", "criterion__order", "criterion__code")
    )
    labels = {
        (paper_id, problem_id): label
        for paper_id, problem_id, label in PaperLabel.objects.filter(
            problem__contest=contest
        ).values_list("paper_id", "problem_id", "label")
    }
    by_criterion: dict[int, list] = defaultdict(list)
    for mark in marks:
        by_criterion[mark.criterion_id].append(mark)
    # A removal (the one guard that counts blank marks with history) also meets the criterion's
    # calibration rows, blank ones too, which the database would refuse to leave without it.
    in_calibration = _criteria_in_calibration(
        [guard.criterion_id for guard in guarded if guard.history_counts]
    )
    errors = []
    for guard in guarded:
        affected = [
            mark
            for mark in by_criterion[guard.criterion_id]
            if mark.points is not None or (guard.history_counts and mark.changes)
        ]
        if not affected or not guard.lists_marks:
            if guard.otherwise:
                errors.append(guard.otherwise)
            elif guard.criterion_id in in_calibration:
                errors.append(
                    f"{guard.refused}: the problem's calibration round has marks of it; "
                    "keep the criterion."
                )
            continue
        lines = []
        for mark in affected:
            problem = mark.criterion.problem
            label = labels.get((mark.paper_id, problem.pk), "without a label")
            if mark.points is None:
                value = f"blank now, {ngettext('%d recorded change', '%d recorded changes', mark.changes) % mark.changes}"
            else:
                value = points_with_word(mark.points)
            lines.append(
                (
                    problem.number,
                    label,
                    mark.sheet.juror.username,
                    f"Problem {problem.number}, paper {label}, juror {mark.sheet.juror.username}, "
                    f"criterion {mark.criterion.code}: {value}.",
                )
            )
        lines.sort()
        errors.append(
            ngettext(
                "%(refused)s while %(count)d mark is given; clear it first %(alternative)s.",
                "%(refused)s while %(count)d marks are given; clear them first %(alternative)s.",
                len(affected),
            )
            % {"refused": guard.refused, "count": len(affected), "alternative": guard.alternative}
        )
        errors.extend(line for *_, line in lines)
    if errors:
        raise ValidationError(errors)


def _criteria_in_calibration(criterion_ids: list[int]) -> set[int]:
    """The criteria among `criterion_ids` that a calibration round has marks of (the jurors',
    the seeds' or the chair's references, blank or not). Two queries, none for no criterion."""
    if not criterion_ids:
        return set()
    return set(
        CalibrationMark.objects.filter(criterion_id__in=criterion_ids).values_list(
            "criterion_id", flat=True
        )
    ) | set(
        ReferenceMark.objects.filter(criterion_id__in=criterion_ids).values_list(
            "criterion_id", flat=True
        )
    )
