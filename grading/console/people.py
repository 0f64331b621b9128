"""People, as the organizer's console manages them: jurors added in bulk from CSV lines, edited,
deactivated and reactivated, unlocked after too many wrong passwords, and their sign-in links.

A new account has no password: its owner signs in once through a one-time link (Django's own
password-reset token, `default_token_generator`), sets a password there and is signed in. The
link stops working once used (the token is tied to the password) and after
`PASSWORD_RESET_TIMEOUT`; resetting a password voids the old one and gives a new link. No e-mail
is sent: the organizer prints sign-in slips.

Bulk additions are all-or-nothing: `jurors_parse` reads every line and reports every problem as
a sentence naming the line and the column; `jurors_add` parses again inside its transaction and
writes only when nothing is wrong."""

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from axes.models import AccessAttempt
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import ngettext

from grading.assigning.assignments import LATE_RULE
from grading.console.bulk_lines import person_lines, usernames_taken
from grading.console.juror_facts import Facts, facts_check, facts_of, facts_write
from grading.models import Assignment, GradingGroup
from grading.rules import access, roles
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

User = get_user_model()

# The last three are optional: the juror's facts for the assignment (grading.console.juror_facts).
COLUMNS = ("name", "username", "email", "problems", "country", "languages", "capacity")
_PROBLEM_TOKEN = re.compile(r"[Pp]?(\d{1,4})")
_SEPARATORS = re.compile(r"[\s;,/]+")


@dataclass(frozen=True)
class JurorLine:
    """One juror to add, read from line `line`."""

    line: int
    name: str
    username: str
    email: str
    problems: tuple[int, ...]
    # Given when the line has the optional columns: its country, languages and capacity.
    facts: Facts | None = None

    @property
    def first_name(self) -> str:
        return self.name.split(maxsplit=1)[0] if self.name else ""

    @property
    def last_name(self) -> str:
        parts = self.name.split(maxsplit=1)
        return parts[1] if len(parts) > 1 else ""

    @property
    def problem_codes(self) -> str:
        return ", ".join(f"P{number}" for number in self.problems) or "none yet"


@dataclass
class JurorBatch:
    """What adding the lines would do: the jurors, or the problems that stop it."""

    contest: Contest
    jurors: list[JurorLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Problem numbers whose grading group does not exist yet and would be created.
    new_groups: list[int] = field(default_factory=list)

    @property
    def late_note(self) -> str:
        """What joining a group means once grading has begun ("" in set-up)."""
        if self.contest.state == Contest.State.SETUP:
            return ""
        return (
            f"Grading has begun in {self.contest.name}: new jurors join their problems' "
            "grading groups but take no paper until jurors are assigned again, and then "
            f"{LATE_RULE}"
        )


def parse_problems(
    text: str, *, contest: Contest, where: str, known: list[int]
) -> tuple[list[int], list[str]]:
    """Problem numbers as typed ("1 3", "P1;P3", "p2, p5"), and sentences for what is not one
    of the contest's problems."""
    numbers, errors = [], []
    for token in _SEPARATORS.split(text.strip()):
        if not token:
            continue
        match = _PROBLEM_TOKEN.fullmatch(token)
        if not match:
            errors.append(
                f"{where}: “{token}” is not a problem; write problem numbers like “1 3” or “P1;P3”."
            )
            continue
        number = int(match.group(1))
        if number not in known:
            have = ", ".join(str(n) for n in known) or "none yet; import the problem set first"
            errors.append(
                f"{where}: {contest.name} has no problem {number}; its problems are {have}."
            )
        elif number not in numbers:
            numbers.append(number)
    return sorted(numbers), errors


def _line_facts(cells: list[str], where) -> tuple[Facts | None, list[str]]:
    """The optional columns' facts (None when the line stops at its problems)."""
    if len(cells) <= 4:
        return None, []
    country, languages, capacity = (cells[4:] + ["", ""])[:3]
    return facts_check(
        country=country,
        capacity=capacity,
        languages=languages,
        where={"country": where(5), "languages": where(6), "capacity": where(7)},
    )


def jurors_parse(*, contest: Contest, text: str) -> JurorBatch:
    """Read `name, username, email, problems` lines and check every one of them, writing
    nothing. Each problem found is a sentence naming its line and column."""
    refuse_if_final(contest, what="its jurors and grading groups")
    batch = JurorBatch(contest=contest)
    rows, refused = person_lines(text, who="jurors", shape="name, username, email, problems")
    if refused:
        batch.errors.append(refused)
        return batch
    known = list(contest.problems.order_by("number").values_list("number", flat=True))
    taken = usernames_taken(rows)
    seen: dict[str, int] = {}
    username_max = User._meta.get_field("username").max_length
    for line, cells in rows:

        def where(column: int) -> str:
            return f"Line {line}, column {column} ({COLUMNS[column - 1]})"  # noqa: B023

        errors = []
        if not 3 <= len(cells) <= 7:
            count = ngettext("%d column", "%d columns", len(cells)) % len(cells)
            batch.errors.append(
                f"Line {line} has {count}; each line needs 4: name, username, email, problems "
                "(then, if you give them, country, languages, capacity)."
            )
            continue
        name, username, email = cells[:3]
        problems_text = cells[3] if len(cells) >= 4 else ""
        if not name:
            errors.append(f"{where(1)}: the juror's name is missing.")
        elif len(name) > 300:
            errors.append(f"{where(1)}: the name is longer than 300 characters.")
        if not username:
            errors.append(f"{where(2)}: the username is missing; the juror signs in with it.")
        elif len(username) > username_max:
            errors.append(f"{where(2)}: “{username}” is longer than {username_max} characters.")
        else:
            try:
                UnicodeUsernameValidator()(username)
            except ValidationError:
                errors.append(
                    f"{where(2)}: “{username}” may hold only letters, digits and @ . + - _ "
                    "(no spaces)."
                )
            else:
                if username.lower() in taken:
                    errors.append(
                        f"{where(2)}: “{username}” is already the username of an account "
                        f"(“{taken[username.lower()]}”); choose another, or edit that person "
                        "on the people page."
                    )
                elif username.lower() in seen:
                    errors.append(
                        f"{where(2)}: “{username}” is also on line {seen[username.lower()]}; "
                        "each juror needs a username of their own."
                    )
                seen.setdefault(username.lower(), line)
        if email:
            try:
                validate_email(email)
            except ValidationError:
                errors.append(f"{where(3)}: “{email}” is not an e-mail address.")
        numbers, problem_errors = parse_problems(
            problems_text, contest=contest, where=where(4), known=known
        )
        errors += problem_errors
        facts, fact_errors = _line_facts(cells, where)
        errors += fact_errors
        if errors:
            batch.errors += errors
        else:
            batch.jurors.append(JurorLine(line, name, username, email, tuple(numbers), facts))
    if not batch.errors:
        grouped = set(
            GradingGroup.objects.filter(problem__contest=contest).values_list(
                "problem__number", flat=True
            )
        )
        batch.new_groups = sorted(
            {number for juror in batch.jurors for number in juror.problems} - grouped
        )
    return batch


@transaction.atomic
def jurors_add(*, contest: Contest, text: str, actor) -> list[User]:
    """Create every juror of the lines, with no password yet (each signs in through a one-time
    link), in the juror group and in the grading group of each of their problems (created where
    a problem has none). Parsed again here, in the transaction: ValidationError with every
    problem, writing nothing, when any line is wrong."""
    access.require(
        actor is None or access.may_run_contest(actor), "Only an organizer can add jurors."
    )
    contest = refuse_if_final_now(contest, what="its jurors and grading groups")
    batch = jurors_parse(contest=contest, text=text)
    if batch.errors:
        raise ValidationError(batch.errors)
    roles.ensure_role_groups()
    juror_group = Group.objects.get(name=roles.JUROR)
    problems = {problem.number: problem for problem in contest.problems.all()}
    groups: dict[int, GradingGroup] = {}
    created = []
    for line in batch.jurors:
        user = User(
            username=line.username,
            first_name=line.first_name,
            last_name=line.last_name,
            email=line.email,
        )
        user.set_unusable_password()
        user.save()
        user.groups.add(juror_group)
        for number in line.problems:
            if number not in groups:
                groups[number], _ = GradingGroup.objects.get_or_create(problem=problems[number])
            # A new juror has submitted nothing, so LATE_RULE leaves them free to take papers.
            groups[number].jurors.add(user)
        created.append(user)
    facts_write(
        [(user, line.facts) for user, line in zip(created, batch.jurors, strict=True) if line.facts]
    )
    return created


@transaction.atomic
def organizer_create(*, username: str, email: str = "", name: str = "") -> User:
    """The first organizer of a new site (`manage.py create_organizer`, run by whoever runs the
    server): an account in the organizer role with no password, which its owner sets through
    a one-time sign-in link as a juror does. ValidationError, writing nothing, on a bad or
    taken username or a bad e-mail."""
    errors = []
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        errors.append(f"“{username}” may hold only letters, digits and @ . + - _ (no spaces).")
    if not username or len(username) > User._meta.get_field("username").max_length:
        errors.append("The username must be 1 to 150 characters long.")
    elif User.objects.filter(username__iexact=username).exists():
        errors.append(f"There is already an account “{username}”; choose another username.")
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors.append(f"“{email}” is not an e-mail address.")
    if errors:
        raise ValidationError(errors)
    line = JurorLine(line=0, name=name.strip(), username=username, email=email, problems=())
    user = User(username=username, first_name=line.first_name, last_name=line.last_name)
    user.email = email
    user.is_staff = True  # the organizer sets up in the admin, which lets staff in only
    user.set_unusable_password()
    user.save()
    roles.ensure_role_groups()
    user.groups.add(Group.objects.get(name=roles.ORGANIZER))
    return user


def _require_manage(actor, person, what: str) -> None:
    access.require(
        access.may_manage_person(actor, person),
        f"Only an organizer can {what}, and only a superuser those of a superuser's account.",
    )


@transaction.atomic
def person_update(
    *,
    person,
    actor,
    first_name: str,
    last_name: str,
    email: str,
    problems: dict[Contest, list[int]] | None = None,
    facts: Facts | None = None,
):
    """Change a person's name and e-mail, the problems they grade in the contests given
    (their grading groups) and their facts for the assignment (`facts`, as
    `juror_facts.facts_check` reads them; None leaves them). Taking a juror out of a problem where papers are assigned to them
    is refused: their marks would be orphaned; the chair settles that instead."""
    _require_manage(actor, person, "edit people")
    errors = []
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors.append(f"“{email}” is not an e-mail address.")
    for value, label in ((first_name, "first name"), (last_name, "last name")):
        if len(value) > 150:
            errors.append(f"The {label} is longer than 150 characters.")
    plans = []
    for contest, numbers in (problems or {}).items():
        contest = refuse_if_final_now(contest, what="its jurors and grading groups")
        current = set(
            GradingGroup.objects.filter(problem__contest=contest, jurors=person).values_list(
                "problem__number", flat=True
            )
        )
        leaving = current - set(numbers)
        busy = sorted(
            set(
                Assignment.objects.filter(
                    juror=person, problem__contest=contest, problem__number__in=leaving
                ).values_list("problem__number", flat=True)
            )
        )
        for number in busy:
            errors.append(
                f"{person.username} has papers of P{number} in {contest.name} assigned; "
                "they stay in its grading group."
            )
        plans.append((contest, set(numbers) - current, leaving))
    if errors:
        raise ValidationError(errors)
    person.first_name, person.last_name, person.email = first_name, last_name, email
    person.save(update_fields=["first_name", "last_name", "email"])
    for contest, joining, leaving in plans:
        for problem in contest.problems.filter(number__in=joining):
            group, _ = GradingGroup.objects.get_or_create(problem=problem)
            group.jurors.add(person)
        for group in GradingGroup.objects.filter(
            problem__contest=contest, problem__number__in=leaving
        ):
            group.jurors.remove(person)
    # Saving a leader's or an organizer's name gives them no empty facts.
    if facts is not None and not facts.same_as(facts_of(person)):
        facts_write([(person, facts)])
    if (
        any(joining for _, joining, _ in plans)
        and person.groups.filter(name=roles.JUROR).count() == 0
    ):
        roles.ensure_role_groups()
        person.groups.add(Group.objects.get(name=roles.JUROR))
    return person


ROLE_NAMES = {
    roles.JUROR: "juror",
    roles.CHAIR: "chair",
    roles.ORGANIZER: "organizer",
    roles.LEADER: "leader",
}


def person_roles(person) -> list[str]:
    """The roles a person holds, in the order of `roles.ROLES`."""
    held = set(person.groups.values_list("name", flat=True))
    return [role for role in roles.ROLES if role in held]


@transaction.atomic
def person_set_roles(*, person, actor, wanted: list[str]):
    """Make a person a juror, the chair and/or an organizer (their role groups). Refused:
    no role at all, an organizer taking their own organizer role away, and taking it from the
    last active organizer."""
    _require_manage(actor, person, "change people's roles")
    unknown = sorted(set(wanted) - set(roles.ROLES))
    if unknown:
        raise ValidationError(
            f"“{unknown[0]}” is not a role; the roles are juror, chair, organizer, leader, "
            "specialist."
        )
    if not wanted:
        raise ValidationError(
            f"Choose at least one role for {person.username}; to stop them signing in, "
            "deactivate them instead."
        )
    # Locked so that two organizers taking each other's role at once cannot leave none.
    list(User.objects.select_for_update().filter(groups__name=roles.ORGANIZER).values("pk"))
    held = set(person_roles(person))
    if roles.ORGANIZER in held and roles.ORGANIZER not in wanted:
        others = (
            User.objects.filter(is_active=True, groups__name=roles.ORGANIZER)
            .exclude(pk=person.pk)
            .distinct()
            .count()
        )
        if person.pk == actor.pk:
            raise ValidationError(
                "You cannot take your own organizer role away; ask another organizer to."
            )
        if not access.may_drop_organizer(actor, person, other_organizers=others):
            raise ValidationError(
                f"{person.username} is the last active organizer; make someone else an "
                "organizer first."
            )
    roles.ensure_role_groups()
    groups = {group.name: group for group in Group.objects.filter(name__in=roles.ROLES)}
    person.groups.remove(*(groups[name] for name in held - set(wanted)))
    person.groups.add(*(groups[name] for name in set(wanted) - held))
    # The organizer sets up and the chair reads in the admin, which lets staff in only.
    staff = person.is_superuser or bool({roles.ORGANIZER, roles.CHAIR} & set(wanted))
    if person.is_staff != staff:
        person.is_staff = staff
        person.save(update_fields=["is_staff"])
    person.__dict__.pop("_jury_roles", None)
    return person


@transaction.atomic
def person_set_active(*, person, actor, active: bool):
    """Deactivate a person (they can no longer sign in, their marks stay) or reactivate them."""
    _require_manage(actor, person, "deactivate or reactivate people")
    if not active and person.pk == actor.pk:
        raise ValidationError("You cannot deactivate your own account.")
    person.is_active = active
    person.save(update_fields=["is_active"])
    return person


def person_unlock(*, person, actor) -> int:
    """Lift a log-in lock-out after too many wrong passwords; the count of records cleared."""
    _require_manage(actor, person, "unlock accounts")
    return axes_reset(username=person.username)


@transaction.atomic
def password_reset(*, person, actor):
    """Void a person's password (and any sign-in link given before) and lift a lock-out: the
    next step is a new sign-in link, from `sign_in_link`."""
    _require_manage(actor, person, "reset passwords")
    person.set_unusable_password()
    person.save(update_fields=["password"])
    axes_reset(username=person.username)
    return person


def awaits_sign_in(person) -> bool:
    """An account whose owner has not yet set a password through a link: the only accounts
    whose link the console shows or prints (a link to any other would reset its password)."""
    return person.is_active and not person.has_usable_password()


def sign_in_path(person) -> str:
    """The one-time link's path: it sets a password and signs in (grading.console.views.signin)."""
    return reverse(
        "sign_in",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(person.pk)),
            "token": default_token_generator.make_token(person),
        },
    )


def link_expiry(now: datetime | None = None) -> datetime:
    """When a link made now stops working."""
    return (now or timezone.now()) + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)


def locked_usernames() -> set[str]:
    """Usernames locked out of logging in now (django-axes), in one query."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    return set(
        AccessAttempt.objects.filter(
            failures_since_start__gte=settings.AXES_FAILURE_LIMIT, attempt_time__gte=since
        ).values_list("username", flat=True)
    )
