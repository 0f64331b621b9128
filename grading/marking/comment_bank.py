"""Writes on the comment bank, a criterion's shared notes ("vowel harmony rule missed") with the
points they usually go with: a juror of the group proposes one (theirs alone until the chair
adopts it into the group's bank, `bank_access.bank_notes_readable`), the chair adds, adopts and
curates (edits, removes, reorders), and inserting one in a mark's note counts a use.

The bank holds text and suggested points only, never a juror's mark: inserting a note copies
its text into the juror's own note (saved through the sheet's note autosave, recorded like every
note), so that editing or removing the bank's note later changes no mark. Each service checks
its own access (`grading.rules.access`) and refuses in a final contest."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Max, Q

from grading.models import BankNote
from grading.rules import access, bank_access
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Criterion
from rubrics.validators import validate_points

TEXT_MAX_LENGTH = BankNote._meta.get_field("text").max_length
_WHAT = "its comment bank"


def _clean_text(text: str, criterion: Criterion) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError(
            f"Criterion {criterion.code}: write the note's text; an empty note cannot go in "
            "the bank."
        )
    if len(text) > TEXT_MAX_LENGTH:
        raise ValidationError(
            f"Criterion {criterion.code}: the note is {len(text)} characters long; shorten it "
            f"to {TEXT_MAX_LENGTH} at most."
        )
    return text


def _among(*, adopted: bool, author) -> Q:
    """The notes a note must not repeat: the group's bank, and for a proposal its author's own
    proposals too (never another juror's, whose words the author must not learn of)."""
    if adopted:
        return Q(adopted=True)
    return Q(adopted=True) | Q(adopted=False, author_id=getattr(author, "pk", None))


def _refuse_duplicate(
    criterion: Criterion, text: str, *, among: Q, other_than: int | None = None
) -> None:
    """One note per text in a criterion's bank, whatever its capitals: a second copy would split
    the uses of what is one note."""
    same = BankNote.objects.filter(among, criterion=criterion, text__iexact=text)
    if other_than is not None:
        same = same.exclude(pk=other_than)
    if same.exists():
        raise ValidationError(
            f"Criterion {criterion.code}'s bank already holds the note “{text}”; insert that "
            "one instead of adding it again."
        )


def _check_points(points: Decimal | None, criterion: Criterion) -> None:
    """Suggested points are checked as a mark's are (range and step); blank suggests none."""
    validate_points(points, criterion, where="The suggested points")


def bank_note_checked(
    *,
    criterion: Criterion,
    text: str,
    points: Decimal | None,
    other_than: int | None = None,
    adopted: bool = True,
    author=None,
) -> str:
    """The note's text as the bank keeps it (stripped), once it, its suggested points and its
    uniqueness in the criterion's bank are checked: what every door (sheet, curation page,
    admin) asks before writing a note. `other_than`: the note being edited; `adopted` and
    `author`: whether it is in the group's bank or its author's proposal."""
    text = _clean_text(text, criterion)
    _check_points(points, criterion)
    _refuse_duplicate(
        criterion, text, among=_among(adopted=adopted, author=author), other_than=other_than
    )
    return text


@transaction.atomic
def bank_note_add(*, criterion: Criterion, text: str, points: Decimal | None, author) -> BankNote:
    """Add a note to the criterion's bank, last in its order: straight into the group's bank
    when the chair adds it, as the author's own proposal when a juror does."""
    problem = criterion.problem
    refuse_if_final_now(problem.contest, _WHAT)
    access.require(
        bank_access.may_use_bank(author, problem) or bank_access.may_curate_bank(author),
        f"Only the jurors of {problem.code} and the chair add notes to its comment bank.",
    )
    adopted = bank_access.may_curate_bank(author)
    text = bank_note_checked(
        criterion=criterion, text=text, points=points, adopted=adopted, author=author
    )
    return BankNote.objects.create(
        criterion=criterion,
        text=text,
        points=points,
        author=author if author.is_authenticated else None,
        adopted=adopted,
        order=_next_order(criterion),
    )


def _next_order(criterion: Criterion) -> int:
    last = BankNote.objects.filter(criterion=criterion).aggregate(last=Max("order"))["last"]
    return 0 if last is None else last + 1


def _curated(note: BankNote, actor) -> BankNote:
    """The note read afresh with its criterion and contest, once the actor may curate and the
    contest is not final (its row held until the writer's transaction ends)."""
    access.require(
        bank_access.may_curate_bank(actor), "Only the chair edits, removes and reorders bank notes."
    )
    note = BankNote.objects.select_related("criterion__problem__contest").get(pk=note.pk)
    refuse_if_final_now(note.criterion.problem.contest, _WHAT)
    return note


@transaction.atomic
def bank_note_edit(*, note: BankNote, text: str, points: Decimal | None, actor) -> BankNote:
    """Change a bank note's text or suggested points. The notes of marks it was inserted into
    stay as their jurors saved them: those are the jurors' own text."""
    note = _curated(note, actor)
    criterion = note.criterion
    text = bank_note_checked(
        criterion=criterion,
        text=text,
        points=points,
        other_than=note.pk,
        adopted=note.adopted,
        author=note.author,
    )
    note.text, note.points = text, points
    note.save(update_fields=["text", "points"])
    return note


@transaction.atomic
def bank_note_adopt(*, note: BankNote, actor) -> BankNote:
    """Adopt a juror's proposal into the group's bank, where every juror of the problem reads
    it (last in the bank's order). Its text and points only, as proposed; the mark it was
    written on stays the juror's. Adopting an adopted note changes nothing."""
    note = _curated(note, actor)
    if note.adopted:
        return note
    criterion = note.criterion
    if BankNote.objects.filter(criterion=criterion, adopted=True, text__iexact=note.text).exists():
        raise ValidationError(
            f"Criterion {criterion.code}'s bank already holds the note “{note.text}”; remove "
            "this proposal rather than adopt a second copy."
        )
    note.adopted, note.order = True, _next_order(criterion)
    note.save(update_fields=["adopted", "order"])
    return note


@transaction.atomic
def bank_note_remove(*, note: BankNote, actor) -> None:
    """Remove a note from its bank; the marks' notes it was inserted into stay."""
    _curated(note, actor).delete()


@transaction.atomic
def bank_note_move(*, note: BankNote, up: bool, actor) -> BankNote:
    """Move a note one place up or down in its criterion's bank (its number in the sheet); the
    first stays first and the last last. The bank is numbered afresh 0, 1, 2… as it goes, so
    that orders left equal by earlier writes cannot stall a move."""
    note = _curated(note, actor)
    notes = list(BankNote.objects.filter(criterion_id=note.criterion_id).order_by("order", "id"))
    at = next(i for i, other in enumerate(notes) if other.pk == note.pk)
    to = at - 1 if up else at + 1
    if 0 <= to < len(notes):
        notes[at], notes[to] = notes[to], notes[at]
    for position, other in enumerate(notes):
        other.order = position
    BankNote.objects.bulk_update(notes, ["order"])
    return notes[to] if 0 <= to < len(notes) else note


def bank_note_used(*, note: BankNote, actor) -> int:
    """Count one use of the note, when a juror inserts it in a mark's note; the new count. One
    UPDATE adding 1 in the database, so that jurors inserting the same note at once both
    count."""
    problem = note.criterion.problem
    refuse_if_final(problem.contest, _WHAT)
    access.require(
        bank_access.may_use_bank(actor, problem)
        and BankNote.objects.filter(bank_access.bank_notes_readable(actor), pk=note.pk).exists(),
        f"Only the jurors of {problem.code} and the chair use its comment bank, and a juror's "
        "proposal only its author until the chair adopts it.",
    )
    BankNote.objects.filter(pk=note.pk).update(uses=F("uses") + 1)
    note.refresh_from_db(fields=["uses"])
    return note.uses
