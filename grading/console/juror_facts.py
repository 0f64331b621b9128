"""What the assignment knows of each juror, as the organizer gives it: their country, their
capacity (the most papers of one problem they take) and the languages they read, alone or with
help. Given as bulk lines `username, country, capacity, languages` on the console or through
`manage.py set_juror_facts`, as the optional columns of the people CSV
(`grading.console.people`), or on a person's page; every door reads the same notation here and
words its problems in the same sentences.

Languages are written `Estonian; Finnish (with help); English`: separated by semicolons (a
comma would split the CSV's cell), each read alone unless it ends in "(with help)". They are
compared as `language_key` compares them, so "finnish" and "Finnish" are one language, kept as
first typed (`language_name`: capitalised when typed all in lower case).

Bulk lines are all-or-nothing: `juror_facts_parse` reads every line and reports every problem
as a sentence naming the line and the column; `juror_facts_set` parses again inside its
transaction and writes only when nothing is wrong. A line replaces that juror's country,
capacity and languages; whether they are available stays as it is."""

import csv
import re
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Lower
from django.utils.translation import ngettext

from grading.console.bulk_lines import MAX_LINES, bulk_lines
from grading.models import JurorLanguage, JurorProfile, language_key, language_name
from grading.rules import access

User = get_user_model()

COLUMNS = ("username", "country", "capacity", "languages")
SHAPE = "username, country, capacity, languages"
# A language's or a country's name as the models keep it.
NAME_MAX = JurorProfile._meta.get_field("country").max_length
# More papers of one problem than a whole olympiad has: a typing slip, said as such.
CAPACITY_MAX = 1000
WITH_HELP = "(with help)"
_LEVEL_SUFFIX = re.compile(r"\(\s*([^()]*?)\s*\)\s*$")


@dataclass(frozen=True)
class Facts:
    """One juror's facts as the organizer gave them: country ("" for none), capacity (None for
    no limit) and (language, level) pairs in the order typed."""

    country: str = ""
    capacity: int | None = None
    languages: tuple[tuple[str, str], ...] = ()

    @property
    def languages_text(self) -> str:
        return languages_text(self.languages)

    @property
    def capacity_text(self) -> str:
        return "no limit" if self.capacity is None else str(self.capacity)

    def same_as(self, other: "Facts") -> bool:
        """The same facts, whatever order the languages come in (they are stored unordered)."""
        return (self.country, self.capacity, set(self.languages)) == (
            other.country,
            other.capacity,
            set(other.languages),
        )


def languages_text(languages) -> str:
    """(language, level) pairs in the notation they are typed in: "Estonian; Finnish (with
    help)"."""
    return "; ".join(
        f"{language} {WITH_HELP}" if level == JurorLanguage.Level.WITH_HELP else language
        for language, level in languages
    )


def parse_languages(text: str, *, where: str) -> tuple[tuple[tuple[str, str], ...], list[str]]:
    """(language, level) pairs of "Estonian; Finnish (with help)", and a sentence for each
    part that is not one (`where` begins it)."""
    pairs: list[tuple[str, str]] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    for part in text.split(";"):
        part = " ".join(part.split())
        if not part:
            continue
        level = JurorLanguage.Level.READS
        language = part
        suffix = _LEVEL_SUFFIX.search(part)
        if suffix:
            if " ".join(suffix.group(1).split()).casefold() != "with help":
                errors.append(
                    f"{where}: “{part}” carries “({suffix.group(1)})”; a language is read alone, "
                    f"or with help, written “{part[: suffix.start()].strip() or 'Finnish'} "
                    f"{WITH_HELP}”."
                )
                continue
            level = JurorLanguage.Level.WITH_HELP
            language = part[: suffix.start()].strip()
        if not language:
            errors.append(f"{where}: “{part}” names no language before “{WITH_HELP}”.")
        elif len(language) > NAME_MAX:
            errors.append(f"{where}: “{language}” is longer than {NAME_MAX} characters.")
        elif "," in language or "(" in language or ")" in language:
            errors.append(
                f"{where}: “{language}” is not a language's name; separate languages with "
                "semicolons, as in “Estonian; Finnish (with help)”."
            )
        elif language_key(language) in seen:
            errors.append(
                f"{where}: “{language}” is given twice (as “{seen[language_key(language)]}” "
                "before); give each language once, with its level."
            )
        else:
            seen[language_key(language)] = language
            pairs.append((language_name(language), level))
    return tuple(pairs), errors


def parse_capacity(text: str, *, where: str) -> tuple[int | None, list[str]]:
    """A capacity as typed: a whole number of papers, or empty for no limit."""
    text = text.strip()
    if not text:
        return None, []
    if not text.isdigit():
        return None, [
            f"{where}: “{text}” is not a number of papers; give a whole number such as 12, "
            "or leave it empty for no limit."
        ]
    value = int(text)
    if value < 1:
        return None, [
            f"{where}: a juror takes at least 1 paper of a problem; leave it empty for no "
            "limit, or take the juror out of the problem's grading group."
        ]
    if value > CAPACITY_MAX:
        return None, [f"{where}: {value} papers are more than any problem has; check the number."]
    return value, []


def parse_country(text: str, *, where: str) -> tuple[str, list[str]]:
    country = " ".join(text.split())
    if len(country) > NAME_MAX:
        return "", [f"{where}: “{country}” is longer than {NAME_MAX} characters."]
    return country, []


def facts_check(
    *, country: str, capacity: str, languages: str, where: dict[str, str]
) -> tuple[Facts | None, list[str]]:
    """One juror's facts from the three texts, or the sentences that stop them; `where` names
    each place ("country", "capacity", "languages") as the sentences begin, in the order the
    sentences come (the columns' order)."""
    country_value, country_errors = parse_country(country, where=where["country"])
    capacity_value, capacity_errors = parse_capacity(capacity, where=where["capacity"])
    pairs, language_errors = parse_languages(languages, where=where["languages"])
    found = {"country": country_errors, "capacity": capacity_errors, "languages": language_errors}
    errors = [sentence for key in where for sentence in found[key]]
    if errors:
        return None, errors
    return Facts(country_value, capacity_value, pairs), []


def facts_of(user) -> Facts:
    """A person's facts as stored (their profile and languages: two queries, none when the
    caller prefetched `juror_profile` and `reading_languages`)."""
    try:
        profile = user.juror_profile
    except JurorProfile.DoesNotExist:
        profile = None
    return Facts(
        country=profile.country if profile else "",
        capacity=profile.capacity if profile else None,
        languages=tuple((row.language, row.level) for row in user.reading_languages.all()),
    )


def facts_write(users_facts: list[tuple[object, Facts]]) -> None:
    """Replace each user's country, capacity and languages (their availability stays), in a
    fixed number of queries whatever the number of users. The caller holds the transaction."""
    if not users_facts:
        return
    ids = [user.pk for user, _ in users_facts]
    profiles = {
        profile.user_id: profile for profile in JurorProfile.objects.filter(user_id__in=ids)
    }
    new, changed = [], []
    for user, facts in users_facts:
        profile = profiles.get(user.pk)
        if profile is None:
            new.append(JurorProfile(user=user, country=facts.country, capacity=facts.capacity))
        else:
            profile.country, profile.capacity = facts.country, facts.capacity
            changed.append(profile)
    JurorProfile.objects.bulk_create(new)
    JurorProfile.objects.bulk_update(changed, ["country", "capacity"])
    JurorLanguage.objects.filter(user_id__in=ids).delete()
    JurorLanguage.objects.bulk_create(
        JurorLanguage(user=user, language=language, level=level)
        for user, facts in users_facts
        for language, level in facts.languages
    )
    for user, _ in users_facts:
        # A user object read before the write would answer with its old facts.
        user.__dict__.pop("_prefetched_objects_cache", None)
        user._state.fields_cache.pop("juror_profile", None)


@dataclass(frozen=True)
class FactsLine:
    """One juror's facts read from line `line`, with the account they belong to."""

    line: int
    user: object
    facts: Facts
    # What the juror's facts were before, to show beside the new ones in the preview.
    before: Facts

    @property
    def changes(self) -> bool:
        return not self.facts.same_as(self.before)


@dataclass
class FactsBatch:
    """What setting the lines would do: the jurors' new facts, or the problems that stop it."""

    lines: list[FactsLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(1 for line in self.lines if line.changes)

    @property
    def preview_line(self) -> str:
        return self.line(dry_run=True)

    def line(self, *, dry_run: bool = False) -> str:
        jurors = ngettext("%d juror", "%d jurors", len(self.lines)) % len(self.lines)
        changed = ngettext("%d of them changes", "%d of them change", self.changed) % self.changed
        verb = "would be set" if dry_run else "set"
        return f"Facts of {jurors} {verb} ({changed})."


def _rows(text: str) -> tuple[list[tuple[int, list[str]]], str]:
    try:
        rows = bulk_lines(text)
    except csv.Error as error:
        return [], f"The lines cannot be read as CSV ({error}); check the quotes."
    if rows and rows[0][1][:1] and rows[0][1][0].lower() == "username":
        rows = rows[1:]
    if not rows:
        return [], f"There is no juror's facts line: give one line per juror, “{SHAPE}”."
    if len(rows) > MAX_LINES:
        return [], f"There are {len(rows)} lines; give at most {MAX_LINES} at a time."
    return rows, ""


def juror_facts_parse(*, text: str, actor=None) -> FactsBatch:
    """Read `username, country, capacity, languages` lines and check every one of them,
    writing nothing. Each problem found is a sentence naming its line and column. A line may
    stop after the country or the capacity: what it leaves out is none (no languages, no
    limit)."""
    batch = FactsBatch()
    rows, refused = _rows(text)
    if refused:
        batch.errors.append(refused)
        return batch
    wanted = [cells[0].lower() for _, cells in rows if cells and cells[0]]
    users = {
        user.lower: user
        for user in User.objects.annotate(lower=Lower("username"))
        .filter(lower__in=wanted)
        .select_related("juror_profile")
        .prefetch_related("reading_languages")
    }
    seen: dict[str, int] = {}
    for line, cells in rows:

        def where(column: int) -> str:
            return f"Line {line}, column {column} ({COLUMNS[column - 1]})"  # noqa: B023

        if not 2 <= len(cells) <= 4:
            count = ngettext("%d column", "%d columns", len(cells)) % len(cells)
            batch.errors.append(
                f"Line {line} has {count}; each line needs 4: {SHAPE} (separate the languages "
                "with semicolons)."
            )
            continue
        cells = cells + [""] * (4 - len(cells))
        username = cells[0]
        errors = []
        user = users.get(username.lower())
        if not username:
            errors.append(f"{where(1)}: the username is missing.")
        elif user is None:
            errors.append(
                f"{where(1)}: there is no account “{username}”; add the juror on the people "
                "page first, or correct the username."
            )
        elif actor is not None and not access.may_manage_person(actor, user):
            errors.append(
                f"{where(1)}: “{username}” is a superuser's account; only a superuser edits it."
            )
        elif username.lower() in seen:
            errors.append(
                f"{where(1)}: “{username}” is also on line {seen[username.lower()]}; give each "
                "juror one line."
            )
        if username:
            seen.setdefault(username.lower(), line)
        facts, fact_errors = facts_check(
            country=cells[1],
            capacity=cells[2],
            languages=cells[3],
            where={"country": where(2), "capacity": where(3), "languages": where(4)},
        )
        errors += fact_errors
        if errors:
            batch.errors += errors
        else:
            batch.lines.append(FactsLine(line, user, facts, facts_of(user)))
    return batch


def juror_facts_set(*, text: str, actor, dry_run: bool = False) -> FactsBatch:
    """Set the facts of every line's juror (`actor` None is the command line). ValidationError
    with every problem, writing nothing, when any line is wrong; `dry_run` checks and writes
    nothing."""
    access.require(
        actor is None or access.may_run_contest(actor),
        "Only an organizer can set jurors' languages, countries and capacities.",
    )
    if dry_run:
        return _set(text, actor, dry_run=True)
    with transaction.atomic():
        return _set(text, actor, dry_run=False)


def _set(text: str, actor, *, dry_run: bool) -> FactsBatch:
    batch = juror_facts_parse(text=text, actor=actor)
    if batch.errors:
        raise ValidationError(batch.errors)
    if not dry_run:
        facts_write([(line.user, line.facts) for line in batch.lines])
    return batch


def facts_lines_text(users) -> str:
    """The users' facts as the lines that would set them again (their `juror_profile` and
    `reading_languages` prefetched)."""
    lines = []
    for user in users:
        facts = facts_of(user)
        capacity = "" if facts.capacity is None else str(facts.capacity)
        lines.append(f"{user.username}, {_cell(facts.country)}, {capacity}, {facts.languages_text}")
    return "\n".join(lines)


def _cell(value: str) -> str:
    if "," in value or '"' in value:
        return '"' + value.replace('"', '""') + '"'
    return value
