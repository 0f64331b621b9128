"""The competition's task ids: `1` + four-digit year + two-digit problem + two-digit task + `00`
(`12026030200` is problem 3, task 2 of 2026). Linguini writes a leading `0` instead of the `1`,
and spreadsheets drop leading zeros, so ids are compared by year, problem and task only."""

import re
from dataclasses import dataclass

ID_SHAPE = "1 + year + two-digit problem + two-digit task + 00, e.g. 12026030200"
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True, order=True)
class TaskKey:
    year: int
    problem: int
    task: int

    def __str__(self) -> str:
        return f"1{self.year:04d}{self.problem:02d}{self.task:02d}00"


def parse_task_id(raw) -> TaskKey:
    """The task an id names; ValueError with a sentence fragment when it does not follow the
    scheme."""
    text = "" if raw is None or isinstance(raw, bool) else str(raw).strip()
    if not _DIGITS.fullmatch(text):
        raise ValueError(f"“{text}” is not a task id ({ID_SHAPE}).")
    digits = text.lstrip("0")
    if len(digits) == 11 and digits[0] == "1":
        digits = digits[1:]
    if len(digits) != 10 or digits[8:] != "00":
        raise ValueError(f"“{text}” is not a task id ({ID_SHAPE}).")
    key = TaskKey(year=int(digits[:4]), problem=int(digits[4:6]), task=int(digits[6:8]))
    if key.problem == 0 or key.task == 0:
        raise ValueError(f"“{text}” is not a task id: problems and tasks are numbered from 1.")
    return key


def task_key_or_none(raw) -> TaskKey | None:
    try:
        return parse_task_id(raw)
    except ValueError:
        return None
