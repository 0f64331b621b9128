"""Grading-scheme files read and checked: one TOML file per problem, `<folder>/p<N>.toml`,
listing the problem's criteria in the order jurors see them, each error a sentence naming the file
and the criterion. Nothing here writes; `grading.intake.schemes` loads what this reads."""

import codecs
import difflib
import re
import tomllib
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.exceptions import ValidationError

from grading.intake.importers.files import holds_nul
from grading.rules.domain import points_text
from rubrics.models import Contest, Criterion, Problem, Task
from rubrics.validators import tolerance_refusal

FILE_NAME = re.compile(r"^p(\d+)\.toml$")


PROBLEM_KEYS = ("problem", "title", "language", "max_points", "criteria")


CRITERION_KEYS = ("code", "kind", "title", "guidance", "points", "step", "tolerance", "task")


DEFAULT_STEP = Decimal("0.5")


DEFAULT_TOLERANCE = Decimal("0")


# Fields a scheme file sets on a criterion; `order` is the position in the file.
CRITERION_FIELDS = ("kind", "title", "guidance", "points", "step", "tolerance", "task_id", "order")


@dataclass
class CriterionSpec:
    """One criterion as a scheme file states it, checked."""

    code: str
    kind: str
    title: str
    guidance: str
    points: Decimal
    step: Decimal
    tolerance: Decimal
    task_id: int | None
    order: int

    def values(self) -> dict:
        return {name: getattr(self, name) for name in CRITERION_FIELDS}


@dataclass
class SchemeSpec:
    """One problem's scheme file, checked."""

    file: str
    problem: Problem
    title: str | None
    language: str | None
    criteria: list[CriterionSpec]


def schemes_read(*, contest: Contest, directory: Path | str) -> list[SchemeSpec]:
    """Read and check every `p<N>.toml` in `directory` against the contest's problems and tasks.

    Raises one ValidationError holding every problem found, each a sentence naming the file and
    the criterion, so that a whole folder can be fixed in one pass."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ValidationError(f"The folder {directory} does not exist.")
    files = sorted(
        (path for path in directory.iterdir() if path.suffix == ".toml" and path.is_file()),
        key=lambda path: (_file_number(path.name), path.name),
    )
    if not files:
        raise ValidationError(f"The folder {directory} holds no p<N>.toml scheme files.")
    problems = {
        problem.number: problem
        for problem in contest.problems.prefetch_related("tasks").order_by("number")
    }
    errors: list[str] = []
    specs: list[SchemeSpec] = []
    seen: dict[int, str] = {}
    for path in files:
        match = FILE_NAME.match(path.name)
        if not match:
            errors.append(
                f"{path.name}: a scheme file must be named p<N>.toml after its problem, e.g. p1.toml."
            )
            continue
        number = int(match.group(1))
        if number not in problems:
            known = ", ".join(str(n) for n in problems) or "none"
            errors.append(
                f"{path.name}: contest {contest.slug} has no problem {number}; its problems are {known}."
            )
            continue
        if number in seen:
            errors.append(f"{path.name}: problem {number} already has a scheme in {seen[number]}.")
            continue
        seen[number] = path.name
        spec = _read_file(path, problems[number], errors)
        if spec is not None:
            specs.append(spec)
    if errors:
        raise ValidationError(errors)
    return specs


def _read_file(path: Path, problem: Problem, errors: list[str]) -> SchemeSpec | None:
    name = path.name
    # A byte-order mark (as some editors write) is accepted, as in CSV and JSON files.
    data = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        errors.append(f"{name}, line {line}: the file is not UTF-8 text; save it as UTF-8.")
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        errors.append(_toml_error(name, text, error))
        return None
    except RecursionError:
        errors.append(f"{name}: this is not valid TOML (arrays or tables nested too deeply).")
        return None
    except ValueError:  # tomllib's int() refuses an integer of more than 4300 digits this way
        errors.append(f"{name}: this is not valid TOML (a number with too many digits).")
        return None
    if holds_nul(data):
        # PostgreSQL cannot store a NUL character in text.
        errors.append(f"{name}: a text holds a NUL character (\\u0000); remove it.")
        return None

    count = len(errors)
    _refuse_unknown_keys(data, PROBLEM_KEYS, name, errors)
    if "problem" not in data:
        errors.append(
            f"{name}: the key “problem” is missing; it must be {problem.number}, "
            "the number in the file name."
        )
    elif isinstance(data["problem"], bool) or data["problem"] != problem.number:
        errors.append(
            f"{name}: problem = {_described(data['problem'])} does not match the file name, "
            f"which is for problem {problem.number}."
        )
    title = _text(data, "title", name, errors, max_length=200)
    language = _text(data, "language", name, errors, max_length=100)
    if "max_points" in data:
        max_points = _decimal(data["max_points"], "max_points", name, errors)
        if max_points is not None and max_points != problem.max_points:
            errors.append(
                f"{name}: max_points = {points_text(max_points)} does not match problem "
                f"{problem.number}, which is worth {points_text(problem.max_points)} points."
            )

    entries = data.get("criteria")
    if entries is None:
        errors.append(f"{name}: there are no criteria; list them as [[criteria]] tables.")
        return None
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        errors.append(f"{name}: “criteria” must be a list of [[criteria]] tables.")
        return None
    if not entries:
        errors.append(f"{name}: there are no criteria; list them as [[criteria]] tables.")
        return None

    tasks = {task.external_id.lstrip("0"): task for task in problem.tasks.all()}
    criteria = []
    codes: set[str] = set()
    all_valid = True
    for position, entry in enumerate(entries, start=1):
        spec = _read_criterion(entry, position, name, problem, tasks, codes, errors)
        if spec is None:
            all_valid = False
        else:
            criteria.append(spec)
    if all_valid:
        total = sum((spec.points for spec in criteria), Decimal(0))
        if total != problem.max_points:
            errors.append(
                f"{name}: the criteria add up to {points_text(total)} points, but problem "
                f"{problem.number} is worth {points_text(problem.max_points)}."
            )
    if len(errors) > count:
        return None
    return SchemeSpec(file=name, problem=problem, title=title, language=language, criteria=criteria)


def _read_criterion(
    entry: dict,
    position: int,
    name: str,
    problem: Problem,
    tasks: dict[str, Task],
    codes: set[str],
    errors: list[str],
) -> CriterionSpec | None:
    """One [[criteria]] table, or None when it has an error (appended to `errors`)."""
    count = len(errors)
    code = entry.get("code")
    if isinstance(code, str) and code.strip():
        code = code.strip()
        where = f"{name}, criterion {code}"
    else:
        where = f"{name}, criterion #{position}"
        if code is None:
            errors.append(f'{where}: the code is missing, e.g. code = "A1".')
        else:
            errors.append(
                f'{where}: the code must be a short text, e.g. code = "A1", not {_described(code)}.'
            )
        code = None
    if code is not None:
        if len(code) > 20:
            errors.append(f"{where}: the code is longer than 20 characters.")
        if code in codes:
            errors.append(
                f"{where}: the code is used twice; codes must be unique within a problem."
            )
        codes.add(code)
    _refuse_unknown_keys(entry, CRITERION_KEYS, where, errors)

    kind = entry.get("kind")
    if kind is None:
        errors.append(f"{where}: the kind is missing; use “assignment” or “theory”.")
    elif kind not in Criterion.Kind.values:
        errors.append(
            f"{where}: the kind {_described(kind)} is not known; use “assignment” or “theory”."
        )
    title = _text(entry, "title", where, errors, max_length=300)
    if title is None and "title" not in entry:
        errors.append(f"{where}: the title is missing.")
    elif title is not None and not title.strip():
        errors.append(f"{where}: the title is empty.")
    guidance = _text(entry, "guidance", where, errors)

    points = step = None
    if "points" not in entry:
        errors.append(f"{where}: the points are missing.")
    else:
        points = _decimal(entry["points"], "points", where, errors, max_digits=6)
        if points is not None and points <= 0:
            errors.append(f"{where}: the points must be more than 0, not {points_text(points)}.")
            points = None
    step = _decimal(entry.get("step", DEFAULT_STEP), "step", where, errors, max_digits=5)
    if step is not None and step <= 0:
        errors.append(f"{where}: the step must be more than 0, not {points_text(step)}.")
        step = None
    tolerance = _decimal(
        entry.get("tolerance", DEFAULT_TOLERANCE), "tolerance", where, errors, max_digits=5
    )
    if tolerance is not None and tolerance < 0:
        errors.append(f"{where}: the tolerance must be 0 or more, not {points_text(tolerance)}.")
    elif refusal := tolerance_refusal(points, tolerance):
        errors.append(f"{where}: {refusal}.")
    if points is not None and step is not None and points % step != 0:
        errors.append(
            f"{where}: {points_text(points)} points is not a multiple of the step {points_text(step)}."
        )

    task = None
    if "task" in entry:
        raw = entry["task"]
        if isinstance(raw, bool) or not isinstance(raw, (str, int)):
            errors.append(f'{where}: the task must be a task id such as "12026010100".')
        else:
            task = tasks.get(str(raw).strip().lstrip("0"))
            if task is None:
                known = ", ".join(t.external_id for t in problem.tasks.all()) or "none"
                errors.append(
                    f"{where}: task {raw} is not a task of problem {problem.number}; "
                    f"its tasks are {known}."
                )
    if len(errors) > count:
        return None
    return CriterionSpec(
        code=code,
        kind=kind,
        title=title.strip(),
        guidance=(guidance or "").strip(),
        points=points,
        step=step,
        tolerance=tolerance,
        task_id=task.pk if task else None,
        order=position - 1,
    )


def _refuse_unknown_keys(data: dict, known: tuple[str, ...], where: str, errors: list[str]) -> None:
    for key in data:
        if key in known:
            continue
        guess = difflib.get_close_matches(key, known, n=1)
        hint = f" (did you mean “{guess[0]}”?)" if guess else ""
        errors.append(f"{where}: unknown key “{key}”{hint}; the keys are {', '.join(known)}.")


def _text(data: dict, key: str, where: str, errors: list[str], *, max_length: int | None = None):
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, str):
        errors.append(f"{where}: the {key} must be text in quotes, not {_described(value)}.")
        return None
    if max_length is not None and len(value.strip()) > max_length:
        errors.append(f"{where}: the {key} is longer than {max_length} characters.")
        return None
    return value.strip()


def _decimal(
    raw, key: str, where: str, errors: list[str], *, max_digits: int = 6
) -> Decimal | None:
    """A number of points as the file writes it (number or text); Decimal(str()) keeps 0.1 exact."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str, Decimal)):
        errors.append(f"{where}: the {key} {_described(raw)} is not a number.")
        return None
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite():
        errors.append(f"{where}: the {key} {_described(raw)} is not a number.")
        return None
    # Written out in full, 1e999999999 or 1e-999999999 would be a billion digits.
    shown = points_text(value) if abs(value.adjusted()) < 30 else _described(raw)
    # Before quantize, which raises InvalidOperation for a number this large; by the exponent,
    # since abs() of 1e999999999 raises Overflow.
    if value and value.adjusted() >= max_digits - 2:
        errors.append(f"{where}: the {key} {shown} is too large.")
        return None
    # The database keeps two decimals; more would be rounded away silently.
    if value != value.quantize(Decimal("0.01"), rounding="ROUND_DOWN"):
        errors.append(f"{where}: the {key} {shown} has more than two decimals.")
        return None
    return value


def _toml_error(name: str, text: str, error: tomllib.TOMLDecodeError) -> str:
    message = str(error)
    match = re.match(r"^(.*) \(at line (\d+), column (\d+)\)$", message)
    if match:
        reason, line, column = match.groups()
        place = f"line {line}, column {column}"
    else:
        reason = message.removesuffix(" (at end of document)")
        place = f"line {max(1, len(text.splitlines()))} (the end of the file)"
    reason = reason[:1].lower() + reason[1:]
    return f"{name}, {place}: this is not valid TOML ({reason})."


def _file_number(name: str) -> int:
    match = FILE_NAME.match(name)
    return int(match.group(1)) if match else 0


def _described(value) -> str:
    """A TOML value as a message names it: text in quotes, true/false, "a list", "a table"."""
    if isinstance(value, str):
        return f"“{value}”"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "a table"
    return str(value)
