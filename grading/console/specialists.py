"""Language specialists, added like team leaders: bulk lines `name, username, email, languages`
pasted or uploaded on the console, previewed with every problem as a sentence naming its line
and column, added in one transaction on confirmation. A new account has no password and signs
in once through a one-time link, printed on a sign-in slip that says "Language specialist".

A specialist is an account of its own, with the specialist role only: they read the pages of
the papers whose questions they are given, and never grade. Their languages (read alone) are
kept as `JurorLanguage` rows, so that the help queue proposes them for papers in those
languages. A line naming an existing specialist adds the languages they did not have."""

import re
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils.translation import ngettext

from grading.console.bulk_lines import person_lines, usernames_taken
from grading.console.people import JurorLine
from grading.models import JurorLanguage, language_key, language_name
from grading.rules import access, roles
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

User = get_user_model()

COLUMNS = ("name", "username", "email", "languages")
SHAPE = "name, username, email, languages"
# Languages within their cell: "Tagalog; Ilocano" or "Tagalog / Ilocano" (a comma needs quotes).
_LANGUAGE_SEPARATORS = re.compile(r"[;/,]+")
LANGUAGE_MAX = JurorLanguage._meta.get_field("language").max_length


@dataclass(frozen=True)
class SpecialistLine:
    """One specialist to add, read from line `line`: a new account, or an existing specialist."""

    line: int
    name: str
    username: str
    email: str
    languages: tuple[str, ...]
    existing: bool = False

    @property
    def first_name(self) -> str:
        return JurorLine(self.line, self.name, self.username, self.email, ()).first_name

    @property
    def last_name(self) -> str:
        return JurorLine(self.line, self.name, self.username, self.email, ()).last_name

    @property
    def languages_text(self) -> str:
        return ", ".join(self.languages)


@dataclass
class SpecialistBatch:
    contest: Contest
    specialists: list[SpecialistLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def new_accounts(self) -> list[SpecialistLine]:
        return [line for line in self.specialists if not line.existing]


def parse_languages(text: str) -> list[str]:
    """Languages as typed in their cell, each once (compared through `language_key`)."""
    languages, keys = [], set()
    for token in _LANGUAGE_SEPARATORS.split(text):
        language = language_name(token)
        if language and language_key(language) not in keys:
            keys.add(language_key(language))
            languages.append(language)
    return languages


def _check_username(username: str, where, *, taken, specialists, seen, line) -> list[str]:
    username_max = User._meta.get_field("username").max_length
    if not username:
        return [f"{where(2)}: the username is missing; the specialist signs in with it."]
    if len(username) > username_max:
        return [f"{where(2)}: “{username}” is longer than {username_max} characters."]
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        return [
            f"{where(2)}: “{username}” may hold only letters, digits and @ . + - _ (no spaces)."
        ]
    key = username.lower()
    if key in seen:
        return [f"{where(2)}: “{username}” is also on line {seen[key]}; give each person one line."]
    seen[key] = line
    if key in taken and key not in specialists:
        return [
            f"{where(2)}: “{taken[key]}” is already an account that is not a language "
            "specialist's; a specialist has an account of their own (a juror helps as a juror)."
        ]
    return []


def _check_line(
    line, cells, *, taken, specialists, seen
) -> tuple[list[str], SpecialistLine | None]:
    def where(column: int) -> str:
        return f"Line {line}, column {column} ({COLUMNS[column - 1]})"

    if len(cells) != 4:
        count = ngettext("%d column", "%d columns", len(cells)) % len(cells)
        return [f"Line {line} has {count}; each line needs 4: {SHAPE}."], None
    name, username, email, language_cell = cells
    existing = username.lower() in taken
    errors = []
    if not name and not existing:
        errors.append(f"{where(1)}: the specialist's name is missing.")
    elif len(name) > 300:
        errors.append(f"{where(1)}: the name is longer than 300 characters.")
    errors += _check_username(
        username, where, taken=taken, specialists=specialists, seen=seen, line=line
    )
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors.append(f"{where(3)}: “{email}” is not an e-mail address.")
    languages = parse_languages(language_cell)
    if not languages:
        errors.append(
            f"{where(4)}: the languages are missing; write those the specialist reads, "
            "like “Tagalog; Ilocano”."
        )
    for language in languages:
        if len(language) > LANGUAGE_MAX:
            errors.append(f"{where(4)}: “{language}” is longer than {LANGUAGE_MAX} characters.")
    if errors:
        return errors, None
    return [], SpecialistLine(
        line, name, taken.get(username.lower(), username), email, tuple(languages), existing
    )


def specialists_parse(*, contest: Contest, text: str) -> SpecialistBatch:
    """Read `name, username, email, languages` lines and check every one of them, writing
    nothing. Each problem found is a sentence naming its line and column."""
    refuse_if_final(contest, what="its language help")
    batch = SpecialistBatch(contest=contest)
    rows, refused = person_lines(text, who="language specialists", shape=SHAPE)
    if refused:
        batch.errors.append(refused)
        return batch
    taken = usernames_taken(rows)
    specialists = {
        username.lower()
        for username in User.objects.filter(
            username__in=taken.values(), groups__name=roles.SPECIALIST
        ).values_list("username", flat=True)
    }
    seen: dict[str, int] = {}
    for line, cells in rows:
        errors, specialist = _check_line(
            line, cells, taken=taken, specialists=specialists, seen=seen
        )
        batch.errors += errors
        if specialist is not None:
            batch.specialists.append(specialist)
    return batch


@transaction.atomic
def specialists_add(*, contest: Contest, text: str, actor) -> list:
    """Add every line's specialist: a new account with no password and the specialist role
    (one sign-in link, as for jurors), with the languages they read; an existing specialist
    gains the languages they did not have. Parsed again here, in the transaction:
    ValidationError with every problem, writing nothing, when any line is wrong. The people
    added or updated, in the lines' order."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can add language specialists.",
    )
    contest = refuse_if_final_now(contest, what="its language help")
    batch = specialists_parse(contest=contest, text=text)
    if batch.errors:
        raise ValidationError(batch.errors)
    roles.ensure_role_groups()
    group = Group.objects.get(name=roles.SPECIALIST)
    people = []
    for line in batch.specialists:
        if line.existing:
            user = User.objects.get(username=line.username)
        else:
            user = User(
                username=line.username,
                first_name=line.first_name,
                last_name=line.last_name,
                email=line.email,
            )
            user.set_unusable_password()
            user.save()
            user.groups.add(group)
        held = {
            language_key(row) for row in user.reading_languages.values_list("language", flat=True)
        }
        JurorLanguage.objects.bulk_create(
            JurorLanguage(user=user, language=language, level=JurorLanguage.Level.READS)
            for language in line.languages
            if language_key(language) not in held
        )
        people.append(user)
    return people
