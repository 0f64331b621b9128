"""Team leaders, added like jurors: bulk lines `name, username, email, delegation` pasted or
uploaded on the console, previewed with every problem as a sentence naming its line and column,
added in one transaction on confirmation. A new account has no password and signs in once
through a one-time link, printed on the contest's sign-in slips (`grading.console.people`). A
username that is already someone's account (a juror, say) makes that person a leader too: a
person may be a juror and a leader, and the conflict rule (`appeal_access.may_handle_appeal`) keeps
them off their own delegation's appeals."""

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
from grading.rules import access, roles
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

User = get_user_model()

COLUMNS = ("name", "username", "email", "delegation")


@dataclass(frozen=True)
class LeaderLine:
    """One leader to add, read from line `line`: a new account, or an existing one (`existing`)."""

    line: int
    name: str
    username: str
    email: str
    delegation: str
    existing: bool = False

    @property
    def first_name(self) -> str:
        return JurorLine(self.line, self.name, self.username, self.email, ()).first_name

    @property
    def last_name(self) -> str:
        return JurorLine(self.line, self.name, self.username, self.email, ()).last_name


@dataclass
class LeaderBatch:
    """What adding the lines would do: the leaders, or the problems that stop it."""

    contest: Contest
    leaders: list[LeaderLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def new_accounts(self) -> list[LeaderLine]:
        return [line for line in self.leaders if not line.existing]

    @property
    def existing_accounts(self) -> list[LeaderLine]:
        return [line for line in self.leaders if line.existing]


def _check_line(line, cells, *, contest, codes, taken, seen) -> tuple[list[str], LeaderLine | None]:
    def where(column: int) -> str:
        return f"Line {line}, column {column} ({COLUMNS[column - 1]})"

    if len(cells) != 4:
        count = ngettext("%d column", "%d columns", len(cells)) % len(cells)
        return [
            f"Line {line} has {count}; each line needs 4: name, username, email, delegation."
        ], None
    name, username, email, delegation = cells
    errors = []
    username_max = User._meta.get_field("username").max_length
    existing = username.lower() in taken
    if not name and not existing:
        errors.append(f"{where(1)}: the leader's name is missing.")
    elif len(name) > 300:
        errors.append(f"{where(1)}: the name is longer than 300 characters.")
    if not username:
        errors.append(f"{where(2)}: the username is missing; the leader signs in with it.")
    elif len(username) > username_max:
        errors.append(f"{where(2)}: “{username}” is longer than {username_max} characters.")
    else:
        try:
            UnicodeUsernameValidator()(username)
        except ValidationError:
            errors.append(
                f"{where(2)}: “{username}” may hold only letters, digits and @ . + - _ (no spaces)."
            )
        else:
            if (username.lower(), delegation) in seen:
                errors.append(
                    f"{where(2)}: “{username}” is also on line "
                    f"{seen[username.lower(), delegation]} for {delegation}."
                )
            seen.setdefault((username.lower(), delegation), line)
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors.append(f"{where(3)}: “{email}” is not an e-mail address.")
    if not delegation:
        errors.append(f"{where(4)}: the delegation is missing.")
    elif delegation not in codes:
        have = ", ".join(sorted(codes)) or "none yet; import the delegations first"
        errors.append(
            f"{where(4)}: {contest.name} has no delegation “{delegation}”; its delegations "
            f"are {have}."
        )
    if errors:
        return errors, None
    return [], LeaderLine(
        line, name, taken.get(username.lower(), username), email, delegation, existing
    )


def leaders_parse(*, contest: Contest, text: str) -> LeaderBatch:
    """Read `name, username, email, delegation` lines and check every one of them, writing
    nothing. Each problem found is a sentence naming its line and column."""
    refuse_if_final(contest, what="its delegations and their leaders")
    batch = LeaderBatch(contest=contest)
    rows, refused = person_lines(text, who="leaders", shape="name, username, email, delegation")
    if refused:
        batch.errors.append(refused)
        return batch
    codes = set(contest.delegations.values_list("code", flat=True))
    taken = usernames_taken(rows)
    seen: dict[tuple[str, str], int] = {}
    new_at: dict[str, int] = {}
    for line, cells in rows:
        errors, leader = _check_line(
            line, cells, contest=contest, codes=codes, taken=taken, seen=seen
        )
        if leader is not None and not leader.existing:
            # A new account twice, with other details, would be two people under one name.
            first = new_at.setdefault(leader.username.lower(), line)
            if first != line and any(
                (other.name, other.email) != (leader.name, leader.email)
                for other in batch.leaders
                if other.username.lower() == leader.username.lower()
            ):
                errors.append(
                    f"Line {line}, column 2 (username): “{leader.username}” is also on line "
                    f"{first} with another name or e-mail; give each person one username."
                )
                leader = None
        batch.errors += errors
        if leader is not None:
            batch.leaders.append(leader)
    return batch


@transaction.atomic
def leaders_add(*, contest: Contest, text: str, actor) -> list:
    """Make every line's person a team leader of their delegation: a new account with no
    password (one sign-in link, as for jurors), or an existing one given the leader role. Parsed
    again here, in the transaction: ValidationError with every problem, writing nothing, when
    any line is wrong. The people made leaders, new accounts first."""
    access.require(
        actor is None or access.may_run_contest(actor), "Only an organizer can add team leaders."
    )
    contest = refuse_if_final_now(contest, what="its delegations and their leaders")
    batch = leaders_parse(contest=contest, text=text)
    if batch.errors:
        raise ValidationError(batch.errors)
    leader_group = _leader_group()
    delegations = {delegation.code: delegation for delegation in contest.delegations.all()}
    people: dict[str, object] = {}
    for line in batch.leaders:
        key = line.username.lower()
        user = people.get(key)
        if user is None and line.existing:
            user = User.objects.get(username=line.username)
        elif user is None:
            user = User(
                username=line.username,
                first_name=line.first_name,
                last_name=line.last_name,
                email=line.email,
            )
            user.set_unusable_password()
            user.save()
        people[key] = user
        user.groups.add(leader_group)
        delegations[line.delegation].leaders.add(user)
    return list(people.values())


def delegation_leaders_given_the_role(delegation) -> None:
    """Whoever leads the delegation holds the leader role, which the leaders' pages ask for: for
    a delegation whose leaders were set elsewhere than `leaders_add` (the admin)."""
    _leader_group().user_set.add(*delegation.leaders.all())


def _leader_group() -> Group:
    roles.ensure_role_groups()
    return Group.objects.get(name=roles.LEADER)
