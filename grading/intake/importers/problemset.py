"""Importing a problem set: the IOL-AI competition's `test.csv` + `solution.csv`, or a
Linguini-style JSONL file. Creates the contest if new, its problems and tasks from the ids;
re-running with the same files changes nothing, with changed files it updates the tasks."""

import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils.translation import ngettext

from grading.intake.importers import fields
from grading.intake.importers.errors import ImportProblems, Problems, Progress, at, no_progress
from grading.intake.importers.files import CsvTable, read_csv, read_jsonl, text_value
from grading.intake.importers.ids import TaskKey, task_key_or_none
from grading.intake.labels import paper_labels_ensure
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Contest, Problem, Task

TEST_COLUMNS = ("id", "context", "query", "work_lang", "task_lang", "task_type", "eval_type")
SOLUTION_COLUMNS = ("id", "answer", "split", "points", "task_type", "eval_type")
JSONL_FIELDS = (
    "id",
    "context",
    "query",
    "answer",
    "work_lang",
    "task_lang",
    "task_type",
    "eval_type",
)
# "(same context as above)", any case, with or without parentheses or a full stop.
SAME_CONTEXT = re.compile(r"\(?\s*same context as above\s*\.?\s*\)?\.?", re.IGNORECASE)

# The Task fields an import sets, in the order a change is reported.
TASK_FIELDS = (
    "external_id",
    "task_type",
    "eval_type",
    "work_lang",
    "task_lang",
    "context",
    "query",
    "item_count",
    "answers",
    "split",
    "weight",
    "reference_explanation",
)


@dataclass
class TaskRecord:
    """One task as the files describe it, already checked."""

    key: TaskKey
    external_id: str
    where: str  # "test.csv, row 3": for sentences about this task
    task_type: str
    eval_type: str
    work_lang: str
    task_lang: list[str]
    context: str
    query: str
    answers: list[list[str]]
    split: str
    weight: Decimal
    # Linguini's `explanation` of the official solution; the competition's CSVs have none.
    reference_explanation: str = ""

    @property
    def item_count(self) -> int:
        return len(self.answers)

    def values(self) -> dict:
        return {name: getattr(self, name) for name in TASK_FIELDS}


@dataclass
class ProblemsetSummary:
    contest_slug: str
    contest_created: bool
    problems_created: int
    tasks_created: int
    tasks_changed: list[str] = field(default_factory=list)  # external ids
    tasks_unchanged: int = 0
    tasks_not_in_files: int = 0
    dry_run: bool = False

    def line(self) -> str:
        would = "would be " if self.dry_run else ""
        prefix = "Dry run, nothing written. " if self.dry_run else ""
        if self.contest_created:
            return (
                f"{prefix}Contest “{self.contest_slug}” {would}created with "
                f"{ngettext('%d problem', '%d problems', self.problems_created) % self.problems_created} and {ngettext('%d task', '%d tasks', self.tasks_created) % self.tasks_created}."
            )
        if not (self.problems_created or self.tasks_created or self.tasks_changed):
            return (
                f"{prefix}Contest “{self.contest_slug}”: nothing to change; "
                + ngettext(
                    "%d task already matches the files.",
                    "%d tasks already match the files.",
                    self.tasks_unchanged,
                )
                % self.tasks_unchanged
            )
        text = (
            f"{prefix}Contest “{self.contest_slug}”: {ngettext('%d problem', '%d problems', self.problems_created) % self.problems_created} "
            f"and {ngettext('%d task', '%d tasks', self.tasks_created) % self.tasks_created} {would}created, "
            f"{len(self.tasks_changed)} {would}changed, {self.tasks_unchanged} unchanged."
        )
        if self.tasks_not_in_files:
            text += (
                f" {ngettext('%d task', '%d tasks', self.tasks_not_in_files) % self.tasks_not_in_files} not in the files "
                f"{'would be' if self.dry_run else 'were'} left as they are."
            )
        return text


# --- reading ---------------------------------------------------------------------------------


def _resolve_contexts(records: list[TaskRecord], keys: set[TaskKey], problems: Problems) -> None:
    """Replace "(same context as above)" by the previous task's context in the same problem.

    `keys` are all tasks of the files, including those refused for other reasons: a task whose
    predecessor has an error of its own is not reported a second time."""
    previous: dict[int, str] = {}
    for record in sorted(records, key=lambda record: record.key):
        if SAME_CONTEXT.fullmatch(record.context.strip()):
            if record.key.problem not in previous:
                if any(k.problem == record.key.problem and k < record.key for k in keys):
                    continue
                problems.add(
                    f"{record.where}, context",
                    f"“{record.context.strip()}” refers to the task above, but task "
                    f"{record.external_id} is the first of problem {record.key.problem}.",
                )
                continue
            record.context = previous[record.key.problem]
        previous[record.key.problem] = record.context


def _index(rows: list[tuple[str, object]], problems: Problems) -> dict[TaskKey, tuple[str, object]]:
    """(where, row) by task, refusing an id that comes twice."""
    seen: dict[TaskKey, str] = {}
    found = {}
    for where, row in rows:
        key = fields.task_key(row["id"], f"{where}, id", problems)
        if key is None:
            continue
        if key in seen:
            problems.add(
                f"{where}, id",
                f"{str(row['id']).strip()} appears twice (first in {seen[key]}).",
            )
            continue
        seen[key] = where.split(", ", 1)[1]
        found[key] = (where, row)
    return found


def problemset_read_csv(*, test_path: Path, solution_path: Path) -> list[TaskRecord]:
    """The tasks of a competition problem set; ImportProblems lists everything wrong."""
    problems = Problems()
    tables = [
        read_csv(Path(test_path), Path(test_path).name, problems),
        read_csv(Path(solution_path), Path(solution_path).name, problems),
    ]
    if None in tables:
        problems.raise_if_any()
    test, solution = tables
    # The two files given the other way round are still recognisable by their columns.
    if "query" not in test.columns and "answer" in test.columns and "query" in solution.columns:
        test, solution = solution, test
    test.has_columns(TEST_COLUMNS, problems)
    solution.has_columns(SOLUTION_COLUMNS, problems)
    problems.raise_if_any()
    records = _join_csv(test, solution, problems)
    problems.raise_if_any()
    return records


def _join_csv(test: CsvTable, solution: CsvTable, problems: Problems) -> list[TaskRecord]:
    questions = _index([(at(test.name, row=row.number), row.values) for row in test.rows], problems)
    keys = _index(
        [(at(solution.name, row=row.number), row.values) for row in solution.rows], problems
    )
    for key, (where, row) in questions.items():
        if key not in keys:
            problems.add(f"{where}, id", f"{row['id'].strip()} has no row in {solution.name}.")
    for key, (where, row) in keys.items():
        if key not in questions:
            problems.add(f"{where}, id", f"{row['id'].strip()} has no row in {test.name}.")
    records = []
    for key, (where, row) in questions.items():
        if key not in keys:
            continue
        key_where, key_row = keys[key]
        for column in ("task_type", "eval_type"):
            if row[column].strip().lower() != key_row[column].strip().lower():
                problems.add(
                    f"{key_where}, {column}",
                    f"“{key_row[column].strip()}” differs from “{row[column].strip()}” in {where}.",
                )
        record = _record(
            key=key,
            where=where,
            external_id=row["id"].strip(),
            question=row,
            answer=key_row["answer"],
            answer_where=key_where,
            split=key_row["split"],
            points=key_row["points"],
            problems=problems,
        )
        if record:
            records.append(record)
    _resolve_contexts(records, set(questions), problems)
    return records


def _record(
    *,
    key: TaskKey,
    where: str,
    external_id: str,
    question: dict,
    answer,
    answer_where: str,
    split,
    points,
    problems: Problems,
) -> TaskRecord | None:
    """Check one task's fields; None (with sentences added) when any is wrong."""
    before = len(problems)
    texts = {}
    for name in ("context", "query", "work_lang", "task_type", "eval_type"):
        texts[name] = text_value(question[name], f"{where}, {name}", problems)
    languages = fields.languages(question["task_lang"], f"{where}, task_lang", problems)
    eval_type = None
    if texts["eval_type"] is not None:
        eval_type = fields.choice(
            texts["eval_type"], fields.EVAL_TYPES, "single", f"{where}, eval_type", problems
        )
    answers = None
    if eval_type:
        answers = fields.answers(answer, eval_type, f"{answer_where}, answer", problems)
    split_value = text_value(split, f"{answer_where}, split", problems)
    if split_value is not None:
        split_value = fields.choice(
            split_value,
            tuple(Task.Split.values),
            Task.Split.PUBLIC,
            f"{answer_where}, split",
            problems,
        )
    if points is None and answers is not None:
        # Linguini gives no points: a task with answers counts once, an explanation-only one not.
        kind = (texts["task_type"] or "").strip().lower()
        points = (
            1 if answers and kind in fields.KNOWN_TYPES and kind != Task.Type.EXPLANATION else 0
        )
    weight = (
        fields.points(points, f"{answer_where}, points", problems) if points is not None else None
    )
    # Longer values would be cut by SQLite and refused by PostgreSQL.
    for name, value in (("id", external_id), ("work_lang", texts["work_lang"])):
        limit = Task._meta.get_field("external_id" if name == "id" else name).max_length
        if value is not None and len(value.strip()) > limit:
            problems.add(f"{where}, {name}", f"the value is longer than {limit} characters.")
    task_type = None
    if weight is not None and texts["task_type"] is not None:
        task_type = fields.task_type(texts["task_type"], weight, f"{where}, task_type", problems)
    if len(problems) > before:
        return None
    return TaskRecord(
        key=key,
        external_id=external_id,
        where=where,
        task_type=task_type,
        eval_type=eval_type,
        work_lang=texts["work_lang"].strip(),
        task_lang=languages,
        context=texts["context"].strip(),
        query=texts["query"].strip(),
        answers=answers,
        split=split_value,
        weight=weight,
    )


def problemset_read_jsonl(*, path: Path) -> list[TaskRecord]:
    """The tasks of a Linguini-style JSONL file; ImportProblems lists everything wrong."""
    path = Path(path)
    problems = Problems()
    lines = read_jsonl(path, path.name, problems)
    problems.raise_if_any()
    rows = []
    for number, value in lines:
        where = at(path.name, line=number)
        missing = [name for name in JSONL_FIELDS if name not in value]
        for name in missing:
            problems.add(where, f"the field “{name}” is missing.")
        if not missing:
            rows.append((where, value))
    records = []
    for key, (where, value) in _index(rows, problems).items():
        record = _record(
            key=key,
            where=where,
            external_id=str(value["id"]).strip(),
            question=value,
            answer=value["answer"],
            answer_where=where,
            split=value.get("split"),
            points=value.get("points"),
            problems=problems,
        )
        explanation = text_value(value.get("explanation"), f"{where}, explanation", problems)
        if record and explanation is not None:
            record.reference_explanation = explanation
            records.append(record)
    every_key = {task_key_or_none(value.get("id")) for _, value in lines} - {None}
    _resolve_contexts(records, every_key, problems)
    problems.raise_if_any()
    return records


def problemset_read(paths: list[Path]) -> list[TaskRecord]:
    """Read `test.csv solution.csv` or one `dataset.jsonl`."""
    paths = [Path(path) for path in paths]
    if len(paths) == 2:
        return problemset_read_csv(test_path=paths[0], solution_path=paths[1])
    if len(paths) == 1 and paths[0].suffix.lower() != ".csv":
        return problemset_read_jsonl(path=paths[0])
    raise ImportProblems(
        [
            "Give either the two files test.csv and solution.csv, or one JSONL file; "
            f"got {', '.join(path.name for path in paths) or 'none'}."
        ]
    )


# --- checking against the database and writing ------------------------------------------------


def _contest_years(tasks) -> set[int]:
    return {key.year for key in (task_key_or_none(task.external_id) for task in tasks) if key}


def _check_years(
    records: list[TaskRecord], existing_years: set[int], slug: str, problems: Problems
) -> None:
    """All ids must belong to one problem set, the contest's own if it has tasks already."""
    if existing_years:
        for record in records:
            if record.key.year not in existing_years:
                problems.add(
                    f"{record.where}, id",
                    f"{record.external_id} is from the {record.key.year} problem set, but "
                    f"contest “{slug}” holds the {_years(existing_years)} one.",
                )
        return
    if records:
        first = records[0]  # in file order
        for record in records:
            if record.key.year != first.key.year:
                problems.add(
                    f"{record.where}, id",
                    f"{record.external_id} is from the {record.key.year} problem set, but "
                    f"{first.external_id} ({first.where}) is from the {first.key.year} one.",
                )


def _years(years: set[int]) -> str:
    return " and ".join(str(year) for year in sorted(years))


@transaction.atomic
def problemset_import(
    *,
    contest_slug: str,
    paths: list[Path],
    name: str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ProblemsetSummary:
    """Create or update the contest `contest_slug`, its problems and tasks from the files.

    Everything is checked before anything is written; ImportProblems lists every problem.
    Tasks of the contest that the files do not mention are left as they are. An existing final
    contest refuses (`ContestFinal`) before the files are read, on a dry run too."""
    progress = progress or no_progress
    contest = Contest.objects.filter(slug=contest_slug).first()
    if contest is not None:
        # Even an unchanged re-import is refused: the answer key is part of the final results.
        contest = refuse_if_final_now(contest, what="its problems, tasks and reference answers")
    problems = Problems()
    try:
        validate_slug(contest_slug)
        if len(contest_slug) > Contest._meta.get_field("slug").max_length:
            raise ValidationError("too long")
    except ValidationError:
        problems.add(
            "",
            f"“{contest_slug}” is not a contest slug: use up to "
            f"{Contest._meta.get_field('slug').max_length} letters, digits, hyphens and "
            "underscores.",
        )
    try:
        records = problemset_read(paths)
    except ImportProblems as error:
        problems.sentences.extend(error.sentences)
        problems.raise_if_any()
    existing = (
        list(Task.objects.filter(problem__contest=contest).select_related("problem"))
        if contest
        else []
    )
    _check_years(records, _contest_years(existing), contest_slug, problems)
    problems.raise_if_any()

    by_number = {(task.problem.number, task.number): task for task in existing}
    problem_numbers = set(contest.problems.values_list("number", flat=True)) if contest else set()
    new_problems = sorted({record.key.problem for record in records} - problem_numbers)
    plan = []  # (record, task or None, changed field names)
    for record in records:
        task = by_number.get((record.key.problem, record.key.task))
        if task is None:
            plan.append((record, None, []))
        else:
            changed = [
                field_name
                for field_name, value in record.values().items()
                if getattr(task, field_name) != value
            ]
            plan.append((record, task, changed))
    summary = ProblemsetSummary(
        contest_slug=contest_slug,
        contest_created=contest is None,
        problems_created=len(new_problems),
        tasks_created=sum(1 for _, task, _ in plan if task is None),
        tasks_changed=[record.external_id for record, task, changed in plan if task and changed],
        tasks_unchanged=sum(1 for _, task, changed in plan if task and not changed),
        tasks_not_in_files=len(existing) - sum(1 for _, task, _ in plan if task),
        dry_run=dry_run,
    )
    if dry_run:
        return summary

    if contest is None:
        contest = Contest.objects.create(slug=contest_slug, name=name or contest_slug)
    elif name and contest.name != name:
        contest.name = name
        contest.save(update_fields=["name"])
    first_languages = {}
    for record in sorted(records, key=lambda record: record.key):
        first_languages.setdefault(record.key.problem, ", ".join(record.task_lang))
    for number in new_problems:
        Problem.objects.create(
            contest=contest, number=number, language=first_languages[number][:100]
        )
    problem_by_number = {problem.number: problem for problem in contest.problems.all()}
    if new_problems and contest.papers.exists():
        # Papers imported before need their anonymous label in the new problems too.
        paper_labels_ensure(contest=contest)
    for record, task, changed in progress(plan, len(plan), "Tasks"):
        if task is None:
            Task.objects.create(
                problem=problem_by_number[record.key.problem],
                number=record.key.task,
                **record.values(),
            )
        elif changed:
            for field_name in changed:
                setattr(task, field_name, getattr(record, field_name))
            task.save(update_fields=changed)
    return summary
