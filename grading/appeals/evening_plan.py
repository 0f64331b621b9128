"""The appeals evening's timetable: which meeting (a delegation's appeals on one problem, with
its team leaders at the problem's group's table) takes which time slot. Plain numbers in, plain
numbers out; the models and pages are `grading.appeals.evening`'s.

The rules a timetable keeps, whoever made it (the solver or the organizer moving a meeting):
- every meeting has one slot among those of the evening;
- nobody is in two places at once: a team leader attends every meeting of the delegations they
  lead, and a juror sits at one table at a time;
- a group holds at most its number of tables at once, and each of its meetings has at least one
  of its jurors at the table who may sit there: not one who leads its delegation (they are at
  the meeting as its leader) nor one a conflict of interest keeps from it.

`breaches` says in sentences how a timetable breaks them (none: it holds); `propose` finds one
with scipy's `milp` (HiGHS), meetings as early in the evening as the rules let them, or names
why none exists."""

import time
from dataclasses import dataclass, field

# The solver's time, well under the 10 s for a real evening (about 100 meetings).
TIME_LIMIT_SECONDS = 8.0


@dataclass(frozen=True)
class Meeting:
    """One meeting: its key (the caller's: delegation id and problem id), the people who lead
    its delegation, the group that meets them (a problem's id), and the jurors a conflict of
    interest keeps from its table (`grading.rules.conflicts`)."""

    key: tuple[int, int]
    leaders: frozenset[int]
    group: int
    kept_out: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Evening:
    """What a timetable is made from: the meetings, the number of slots, each group's jurors
    and tables, and how each meeting, group and person is named in a sentence."""

    meetings: tuple[Meeting, ...]
    slots: int
    jurors: dict[int, frozenset[int]]
    tables: dict[int, int]
    meeting_names: dict[tuple[int, int], str] = field(default_factory=dict)
    group_names: dict[int, str] = field(default_factory=dict)
    person_names: dict[int, str] = field(default_factory=dict)

    def meeting_name(self, meeting: Meeting) -> str:
        return self.meeting_names.get(meeting.key, f"meeting {meeting.key}")

    def group_name(self, group: int) -> str:
        return self.group_names.get(group, f"group {group}")

    def person_name(self, person: int) -> str:
        return self.person_names.get(person, f"person {person}")

    def tables_of(self, group: int) -> int:
        return self.tables.get(group, 1)

    def may_sit(self, meeting: Meeting) -> frozenset[int]:
        """The jurors who may sit at `meeting`'s table."""
        jurors = self.jurors.get(meeting.group, frozenset())
        return jurors - meeting.leaders - meeting.kept_out


@dataclass
class Proposal:
    """A timetable (meeting key → slot, 0 first) and who sits at each table (meeting key →
    juror ids), or why there is none (`sentence`)."""

    slot_of: dict[tuple[int, int], int]
    seated: dict[tuple[int, int], list[int]]
    sentence: str = ""
    seconds: float = 0.0

    @property
    def found(self) -> bool:
        return not self.sentence


def _capital(text: str) -> str:
    """The sentence's first letter a capital, the rest as it is ("EST on P1" stays)."""
    return text[:1].upper() + text[1:]


def _slot_word(n: int) -> str:
    return f"{n} slot{'' if n == 1 else 's'}"


def _table_word(n: int) -> str:
    return f"{n} table{'' if n == 1 else 's'}"


def bounds_broken(evening: Evening) -> list[str]:
    """What makes any timetable impossible, counted before solving, in sentences: a person
    with more meetings than slots, a group with more meetings than its tables hold in the
    evening, a meeting no juror of the group may sit at."""
    sentences = []
    if not evening.meetings:
        return sentences
    if evening.slots < 1:
        return ["The evening has no time slot: give it at least one."]
    per_leader: dict[int, int] = {}
    per_group: dict[int, int] = {}
    for meeting in evening.meetings:
        per_group[meeting.group] = per_group.get(meeting.group, 0) + 1
        for person in meeting.leaders:
            per_leader[person] = per_leader.get(person, 0) + 1
        if not evening.jurors.get(meeting.group):
            sentences.append(
                f"{evening.group_name(meeting.group)} has no juror to meet "
                f"{evening.meeting_name(meeting)}."
            )
        elif not evening.may_sit(meeting):
            sentences.append(
                f"No juror of {evening.group_name(meeting.group)} may sit at "
                f"{evening.meeting_name(meeting)}: each of them leads its delegation or is "
                "in conflict with it."
            )
    for person, count in sorted(per_leader.items(), key=lambda item: evening.person_name(item[0])):
        if count > evening.slots:
            sentences.append(
                f"{evening.person_name(person)} leads {count} meetings, "
                f"but the evening has {_slot_word(evening.slots)}."
            )
    for group, count in sorted(per_group.items()):
        room = evening.tables_of(group) * evening.slots
        if count > room:
            sentences.append(
                f"{evening.group_name(group)} has {count} meetings, but "
                f"{_table_word(evening.tables_of(group))} in {_slot_word(evening.slots)} "
                f"hold {room}."
            )
    return sentences


def breaches(evening: Evening, slot_of: dict[tuple[int, int], int]) -> list[str]:
    """How the timetable `slot_of` (meeting key → slot) breaks the evening's rules, one
    sentence each; empty when it holds. Whether each meeting can have a juror of its group at
    the table is a matching of the slot's free jurors to its tables, found as such."""
    sentences = []
    by_slot: dict[int, list[Meeting]] = {}
    for meeting in evening.meetings:
        slot = slot_of.get(meeting.key)
        if slot is None:
            sentences.append(f"{_capital(evening.meeting_name(meeting))} has no slot.")
        elif not 0 <= slot < evening.slots:
            sentences.append(
                f"{_capital(evening.meeting_name(meeting))} is in slot {slot + 1}, "
                f"but the evening has {_slot_word(evening.slots)}."
            )
        else:
            by_slot.setdefault(slot, []).append(meeting)
    for slot, meetings in sorted(by_slot.items()):
        busy: dict[int, list[Meeting]] = {}
        per_group: dict[int, int] = {}
        for meeting in meetings:
            per_group[meeting.group] = per_group.get(meeting.group, 0) + 1
            for person in meeting.leaders:
                busy.setdefault(person, []).append(meeting)
        for person, theirs in sorted(busy.items(), key=lambda item: evening.person_name(item[0])):
            if len(theirs) > 1:
                names = " and ".join(evening.meeting_name(m) for m in theirs)
                sentences.append(
                    f"In slot {slot + 1}, {evening.person_name(person)} is due at {names}."
                )
        for group, count in sorted(per_group.items()):
            if count > evening.tables_of(group):
                sentences.append(
                    f"In slot {slot + 1}, {evening.group_name(group)} has {count} meetings "
                    f"at {_table_word(evening.tables_of(group))}."
                )
        if seat_jurors(evening, meetings, busy=set(busy)) is None:
            sentences.append(
                f"In slot {slot + 1}, not every meeting can have a juror of its group at the "
                "table: those who may sit there are at other tables or leading a meeting."
            )
    return sentences


def seat_jurors(evening: Evening, meetings: list[Meeting], *, busy: set[int]):
    """Jurors for the tables of one slot's `meetings`: at each, at least one juror who may sit
    there (`Evening.may_sit`) and is not `busy` leading a meeting then, nobody at two tables;
    the other free jurors of a group join the tables they may sit at in turn. None when no
    such seating exists."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    if not meetings:
        return {}
    allowed = {meeting.key: evening.may_sit(meeting) - busy for meeting in meetings}
    free = sorted(set().union(*allowed.values()))
    if len(free) < len(meetings):
        return None
    # One juror per table first, as an assignment (a juror who may not sit there costs more
    # than any seating could total), then the rest spread out.
    cost = np.full((len(meetings), len(free)), len(meetings) + 1, dtype=float)
    for row, meeting in enumerate(meetings):
        for column, juror in enumerate(free):
            if juror in allowed[meeting.key]:
                cost[row, column] = 0
    rows, columns = linear_sum_assignment(cost)
    if cost[rows, columns].sum() > 0:
        return None
    seated = {meeting.key: [] for meeting in meetings}
    for row, column in zip(rows, columns, strict=True):
        seated[meetings[row].key].append(free[column])
    taken = {juror for jurors in seated.values() for juror in jurors}
    for juror in free:
        theirs = [m for m in meetings if juror in allowed[m.key]]
        if juror not in taken and theirs:
            emptiest = min(theirs, key=lambda m: (len(seated[m.key]), m.key))
            seated[emptiest.key].append(juror)
    return seated


def propose(evening: Evening, *, time_limit: float = TIME_LIMIT_SECONDS) -> Proposal:
    """A timetable that keeps the evening's rules, each meeting as early as they let it, and
    its seating; or the sentences that say why there is none."""
    started = time.perf_counter()
    if not evening.meetings:
        return Proposal(slot_of={}, seated={})
    impossible = bounds_broken(evening)
    if impossible:
        return Proposal(slot_of={}, seated={}, sentence=" ".join(impossible))
    slot_of = _solve(evening, time_limit=time_limit)
    if slot_of is None:
        return Proposal(
            slot_of={},
            seated={},
            sentence=(
                f"No timetable keeps every rule in {_slot_word(evening.slots)}: the leaders, "
                "the jurors who lead delegations and the groups' tables cannot all fit. Add a "
                "slot or a table."
            ),
            seconds=time.perf_counter() - started,
        )
    seated = {}
    for slot in range(evening.slots):
        meetings = [m for m in evening.meetings if slot_of[m.key] == slot]
        busy = {person for m in meetings for person in m.leaders}
        seated.update(seat_jurors(evening, meetings, busy=busy) or {})
    return Proposal(slot_of=slot_of, seated=seated, seconds=time.perf_counter() - started)


def _solve(evening: Evening, *, time_limit: float) -> dict[tuple[int, int], int] | None:
    """The milp: x[m, s] (meeting m in slot s) and y[j, m, s] (juror j at meeting m's table in
    slot s, for the jurors who may sit there). Each meeting one slot and, there, at least one
    juror at its table; each person at most one place a slot (a meeting they lead, or one
    table); a group's meetings in a slot at most its tables. The objective puts meetings
    early."""
    # Loaded where the solver runs, not when the site starts (tests/test_fast_start.py).
    import numpy as np
    from scipy.optimize import LinearConstraint, milp
    from scipy.sparse import coo_array

    meetings, slots = evening.meetings, evening.slots
    seats = [
        (juror, m)
        for m, meeting in enumerate(meetings)
        for juror in sorted(evening.may_sit(meeting))
    ]
    n_x = len(meetings) * slots
    n_vars = n_x + len(seats) * slots

    def x(m: int, s: int) -> int:
        return m * slots + s

    def y(k: int, s: int) -> int:
        return n_x + k * slots + s

    rows, cols, vals, lower, upper = [], [], [], [], []

    def row(entries, lb, ub):
        index = len(lower)
        for col, val in entries:
            rows.append(index)
            cols.append(col)
            vals.append(val)
        lower.append(lb)
        upper.append(ub)

    seats_at: dict[int, list[int]] = {}
    seats_of: dict[int, list[int]] = {}
    for k, (juror, m) in enumerate(seats):
        seats_at.setdefault(m, []).append(k)
        seats_of.setdefault(juror, []).append(k)
    for m in range(len(meetings)):
        row([(x(m, s), 1) for s in range(slots)], 1, 1)
        for s in range(slots):
            row([(y(k, s), 1) for k in seats_at.get(m, ())] + [(x(m, s), -1)], 0, np.inf)
            for k in seats_at.get(m, ()):
                row([(y(k, s), 1), (x(m, s), -1)], -np.inf, 0)
    led: dict[int, list[int]] = {}
    for m, meeting in enumerate(meetings):
        for person in meeting.leaders:
            led.setdefault(person, []).append(m)
    for person in sorted(set(led) | set(seats_of)):
        for s in range(slots):
            row(
                [(x(m, s), 1) for m in led.get(person, ())]
                + [(y(k, s), 1) for k in seats_of.get(person, ())],
                -np.inf,
                1,
            )
    for group in sorted({meeting.group for meeting in meetings}):
        ours = [m for m, meeting in enumerate(meetings) if meeting.group == group]
        for s in range(slots):
            row([(x(m, s), 1) for m in ours], -np.inf, evening.tables_of(group))
    objective = np.zeros(n_vars)
    for m in range(len(meetings)):
        for s in range(slots):
            objective[x(m, s)] = s
    matrix = coo_array((vals, (rows, cols)), shape=(len(lower), n_vars)).tocsr()
    result = milp(
        objective,
        integrality=np.ones(n_vars),
        bounds=(np.zeros(n_vars), np.ones(n_vars)),
        constraints=LinearConstraint(matrix, lower, upper),
        options={"time_limit": time_limit},
    )
    if result.x is None:
        return None
    return {
        meeting.key: next(s for s in range(slots) if result.x[x(m, s)] > 0.5)
        for m, meeting in enumerate(meetings)
    }
