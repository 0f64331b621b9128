"""Importing AI systems' outputs as papers. Each PATH is one of three shapes, recognised by what
it is: a competition record folder (`predictions.json` + `metadata.json`), a submission CSV
(`id,pred[,explanation]`), or a JSONL file of raw model outputs (`{"system", "id", "output"}`).
Each system becomes one paper; importing it again updates its solutions."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils.translation import ngettext

from grading.intake.importers.errors import ImportProblems, Problems, Progress, at, no_progress
from grading.intake.importers.files import (
    holds_nan,
    json_kind,
    read_csv,
    read_json,
    read_jsonl,
    text_value,
)
from grading.intake.importers.ids import parse_task_id, task_key_or_none
from grading.intake.importers.repair import json_list_note, split_raw_output
from grading.intake.labels import paper_labels_ensure
from grading.models import Paper, Solution
from grading.papers.answers import fit_to_items, split_answer_text
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Contest, Task

RECORD, SUBMISSION, RAW = "record", "submission", "raw"
SOLUTION_FIELDS = (
    "answers",
    "explanation",
    "raw",
    "parse_notes",
    "answers_given",
    "items_expected",
)
MAX_IDENTITY = Paper._meta.get_field("identity").max_length


@dataclass
class OutputRecord:
    """One system's parsed output for one task."""

    identity: str
    task: Task
    where: str
    answers: list[str]
    explanation: str
    raw: str
    parse_notes: list[str]
    # Before padding or cutting: the format figure is the share of tasks where these agree.
    answers_given: int
    items_expected: int
    # The record folder's metadata.json; None leaves a paper's metadata as it is.
    metadata: dict | None = None

    def values(self) -> dict:
        return {name: getattr(self, name) for name in SOLUTION_FIELDS}


@dataclass
class SystemSummary:
    identity: str
    created: bool
    solutions_created: int = 0
    solutions_changed: int = 0
    solutions_unchanged: int = 0

    def line(self) -> str:
        state = "created" if self.created else "updated"
        created = self.solutions_created
        return (
            f"{self.identity}: {state}; "
            f"{ngettext('%d solution', '%d solutions', created) % created} created, "
            f"{self.solutions_changed} changed, {self.solutions_unchanged} unchanged."
        )


@dataclass
class OutputsSummary:
    contest_slug: str
    systems: list[SystemSummary] = field(default_factory=list)
    labels_created: int = 0
    dry_run: bool = False

    @property
    def papers_created(self) -> int:
        return sum(1 for system in self.systems if system.created)

    @property
    def papers_updated(self) -> int:
        return sum(1 for system in self.systems if not system.created)

    def line(self) -> str:
        prefix = "Dry run, nothing written. " if self.dry_run else ""
        would = "would be " if self.dry_run else ""
        total = lambda name: sum(getattr(system, name) for system in self.systems)  # noqa: E731
        return (
            f"{prefix}Contest “{self.contest_slug}”: "
            f"{ngettext('%d paper', '%d papers', self.papers_created) % self.papers_created} "
            f"{would}created, "
            f"{self.papers_updated} {would}updated; "
            f"{ngettext('%d solution', '%d solutions', total('solutions_created')) % total('solutions_created')} "
            f"{would}created, "
            f"{total('solutions_changed')} {would}changed, "
            f"{total('solutions_unchanged')} unchanged; "
            f"{ngettext('%d label', '%d labels', self.labels_created) % self.labels_created} "
            f"{would}drawn."
        )


class _Tasks:
    """The contest's tasks by (year, problem, task), and the sentences for ids that miss."""

    def __init__(self, contest: Contest):
        self.slug = contest.slug
        self.by_key = {}
        for task in Task.objects.filter(problem__contest=contest).select_related("problem"):
            key = task_key_or_none(task.external_id)
            if key:
                self.by_key[key] = task
        self.years = {key.year for key in self.by_key}

    def find(self, raw, where: str, problems: Problems) -> Task | None:
        try:
            key = parse_task_id(raw)
        except ValueError as error:
            problems.add(where, str(error))
            return None
        task = self.by_key.get(key)
        if task is not None:
            return task
        shown = str(raw).strip()
        if self.years and key.year not in self.years:
            years = " and ".join(str(year) for year in sorted(self.years))
            problems.add(
                where,
                f"{shown} is from the {key.year} problem set, but contest “{self.slug}” "
                f"holds the {years} one.",
            )
        else:
            problems.add(where, f"contest “{self.slug}” has no task {shown}.")
        return None


def _fitted(text: str, task: Task, notes: list[str]) -> dict:
    """The fields of a record that come from its answer text."""
    given = split_answer_text(text)
    answers, fit_notes = fit_to_items(given, task.item_count)
    return {
        "answers": answers,
        "parse_notes": notes + json_list_note(text) + fit_notes,
        "answers_given": len(given),
        "items_expected": task.item_count,
    }


def _identity(value: str, where: str, problems: Problems) -> str | None:
    identity = value.strip()
    if not identity:
        problems.add(where, "the system's name is empty.")
        return None
    if len(identity) > MAX_IDENTITY:
        problems.add(where, f"the system's name is longer than {MAX_IDENTITY} characters.")
        return None
    return identity


def read_record_folder(folder: Path, tasks: _Tasks, problems: Problems) -> list[OutputRecord]:
    """A competition record: `predictions.json` rows with `pred` (a JSON list written as a
    string) and `explanation`; `metadata.json` names the team."""
    name = f"{folder.name}/predictions.json"
    metadata = {}
    if (folder / "metadata.json").exists():
        metadata_name = f"{folder.name}/metadata.json"
        metadata = read_json(folder / "metadata.json", metadata_name, problems)
        if metadata is not None and not isinstance(metadata, dict):
            problems.add(metadata_name, f"expected a JSON object, found {json_kind(metadata)}.")
            metadata = None
        elif metadata is not None and holds_nan(metadata):
            # Kept as the paper's metadata, in a JSON column that PostgreSQL checks strictly.
            problems.add(
                metadata_name, "a value is NaN or Infinity, which cannot be stored; write null."
            )
            metadata = None
    predictions = read_json(folder / "predictions.json", name, problems)
    if predictions is None or metadata is None:
        return []
    if not isinstance(predictions, list):
        problems.add(name, f"expected a JSON list of predictions, found {json_kind(predictions)}.")
        return []
    if not predictions:
        problems.add(name, "the list of predictions is empty.")
        return []
    where_team = f"{folder.name}/metadata.json, team"
    # A team that is not text (a list, an object) is a broken file, not a missing name: refused
    # rather than imported under the folder's name.
    team = text_value(metadata.get("team"), where_team, problems)
    if team is None:
        return []
    identity = _identity(team if team.strip() else folder.name, where_team, problems)
    records = []
    for number, row in enumerate(predictions, start=1):
        where = at(name, row=number)
        if not isinstance(row, dict):
            problems.add(where, f"expected a JSON object, found {json_kind(row)}.")
            continue
        missing = [column for column in ("id", "pred") if column not in row]
        for column in missing:
            problems.add(where, f"the field “{column}” is missing.")
        if missing:
            continue
        task = tasks.find(row["id"], f"{where}, id", problems)
        pred = row["pred"]
        if isinstance(pred, list):
            # Already parsed: keep the items as they are, written back as the JSON they were.
            pred = json.dumps(pred, ensure_ascii=False)
        pred = text_value(pred, f"{where}, pred", problems)
        explanation = text_value(row.get("explanation"), f"{where}, explanation", problems)
        if task is None or pred is None or explanation is None or identity is None:
            continue
        records.append(
            OutputRecord(
                identity=identity,
                task=task,
                where=where,
                explanation=explanation.strip(),
                raw=pred,
                metadata=metadata,
                **_fitted(pred, task, []),
            )
        )
    return records


def read_submission_csv(
    path: Path, tasks: _Tasks, problems: Problems, system: str | None
) -> list[OutputRecord]:
    """A submission: `id,pred[,explanation]`, `pred` a JSON list or one answer per line."""
    table = read_csv(path, path.name, problems)
    if table is None or not table.has_columns(("id", "pred"), problems):
        return []
    identity = _identity(system or path.stem, path.name, problems)
    records = []
    for row in table.rows:
        where = at(path.name, row=row.number)
        task = tasks.find(row.values["id"], f"{where}, id", problems)
        if task is None or identity is None:
            continue
        pred = row.values["pred"]
        records.append(
            OutputRecord(
                identity=identity,
                task=task,
                where=where,
                explanation=row.values.get("explanation", "").strip(),
                raw=pred,
                **_fitted(pred, task, []),
            )
        )
    return records


def read_raw_jsonl(
    path: Path, tasks: _Tasks, problems: Problems, system: str | None
) -> list[OutputRecord]:
    """Raw outputs, one `{"system", "id", "output"}` object a line, several systems a file."""
    # The malformed lines are reported already; the others are checked too, so that one run
    # lists every problem of the file (nothing is imported while `problems` is not empty).
    lines = read_jsonl(path, path.name, problems) or []
    records = []
    for number, value in lines:
        where = at(path.name, line=number)
        required = ("id", "output") if system else ("system", "id", "output")
        missing = [name for name in required if name not in value]
        for name in missing:
            problems.add(where, f"the field “{name}” is missing.")
        if missing:
            continue
        identity = text_value(value.get("system", system), f"{where}, system", problems)
        if identity is not None:
            identity = _identity(identity, f"{where}, system", problems)
        task = tasks.find(value["id"], f"{where}, id", problems)
        output = text_value(value["output"], f"{where}, output", problems)
        if identity is None or task is None or output is None:
            continue
        raw = split_raw_output(output)
        records.append(
            OutputRecord(
                identity=identity,
                task=task,
                where=where,
                explanation=raw.explanation,
                raw=output,
                **_fitted(raw.answer_text, task, raw.notes),
            )
        )
    return records


def output_shape(path: Path) -> str | None:
    """Which of the three shapes a PATH is, or None."""
    if path.is_dir() or path.name == "predictions.json":
        return RECORD
    if path.suffix.lower() == ".csv":
        return SUBMISSION
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return RAW
    return None


def _expand(paths):
    """A folder of record folders (the competition's `records/`) stands for each of them."""
    for path in paths:
        if path.is_dir() and not (path / "predictions.json").exists():
            inner = sorted(
                child for child in path.iterdir() if (child / "predictions.json").is_file()
            )
            if inner:
                yield from inner
                continue
        yield path


def outputs_read(
    *, contest: Contest, paths: list[Path], system: str | None = None
) -> list[OutputRecord]:
    """Every output in the PATHs, checked against the contest's tasks; ImportProblems lists
    everything wrong."""
    problems = Problems()
    tasks = _Tasks(contest)
    records = []
    for path in _expand(Path(path) for path in paths):
        if not path.exists():
            problems.add(str(path), "no such file or folder.")
            continue
        shape = output_shape(path)
        if shape == RECORD:
            folder = path if path.is_dir() else path.parent
            records += read_record_folder(folder, tasks, problems)
        elif shape == SUBMISSION:
            records += read_submission_csv(path, tasks, problems, system)
        elif shape == RAW:
            records += read_raw_jsonl(path, tasks, problems, system)
        else:
            problems.add(
                path.name,
                "not an output file: give a competition record folder (with predictions.json), "
                "a submission .csv or a .jsonl of raw outputs.",
            )
    seen = {}
    for record in records:
        first = seen.setdefault((record.identity, record.task.pk), record.where)
        if first != record.where:
            problems.add(
                f"{record.where}, id",
                f"a second output of “{record.identity}” for task {record.task.external_id} "
                f"(the first is in {first}).",
            )
    problems.raise_if_any()
    return records


@transaction.atomic
def outputs_import(
    *,
    contest_slug: str,
    paths: list[Path],
    system: str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> OutputsSummary:
    """Import the outputs in `paths` into the contest: one AI paper per system with fresh labels
    per problem; a system imported before keeps its paper and has its solutions updated.

    `system` names the system of a submission CSV (default: the file's name without extension)
    and of raw-output lines without a "system" field. Everything is checked before anything is
    written; ImportProblems lists every problem. A final contest refuses (`ContestFinal`)
    before its files are read, on a dry run too."""
    progress = progress or no_progress
    contest = Contest.objects.filter(slug=contest_slug).first()
    if contest is None:
        raise ImportProblems(
            [
                f"There is no contest “{contest_slug}”; import its problem set first "
                "(manage.py import_problemset)."
            ]
        )
    contest = refuse_if_final_now(contest, what="its papers and solutions")
    records = outputs_read(contest=contest, paths=paths, system=system)
    identities = list(dict.fromkeys(record.identity for record in records))
    papers = {
        paper.identity: paper
        for paper in Paper.objects.filter(contest=contest, identity__in=identities)
    }
    problems = Problems()
    for identity, paper in papers.items():
        if paper.source != Paper.Source.AI:
            problems.add(
                "",
                f"“{identity}” is a human contestant's paper in contest “{contest_slug}”; "
                "give the AI system another name.",
            )
    problems.raise_if_any()
    existing = {
        (solution.paper_id, solution.task_id): solution
        for solution in Solution.objects.filter(paper__in=papers.values())
    }
    systems = {identity: SystemSummary(identity, identity not in papers) for identity in identities}
    plan = []  # (record, solution or None, changed fields)
    for record in records:
        paper = papers.get(record.identity)
        solution = existing.get((paper.pk, record.task.pk)) if paper else None
        counts = systems[record.identity]
        if solution is None:
            counts.solutions_created += 1
            plan.append((record, None, []))
            continue
        changed = [
            name for name, value in record.values().items() if getattr(solution, name) != value
        ]
        if changed:
            counts.solutions_changed += 1
        else:
            counts.solutions_unchanged += 1
        plan.append((record, solution, changed))
    summary = OutputsSummary(
        contest_slug=contest_slug, systems=list(systems.values()), dry_run=dry_run
    )
    if dry_run:
        summary.labels_created = (
            sum(1 for s in summary.systems if s.created) * contest.problems.count()
        )
        return summary

    for identity in identities:
        metadata = next(
            (
                record.metadata
                for record in records
                if record.identity == identity and record.metadata is not None
            ),
            None,
        )
        paper = papers.get(identity)
        if paper is None:
            papers[identity] = Paper.objects.create(
                contest=contest, source=Paper.Source.AI, identity=identity, metadata=metadata or {}
            )
        elif metadata is not None and paper.metadata != metadata:
            paper.metadata = metadata
            paper.save(update_fields=["metadata"])
    for record, solution, changed in progress(plan, len(plan), "Solutions"):
        if solution is None:
            Solution.objects.create(
                paper=papers[record.identity], task=record.task, **record.values()
            )
        elif changed:
            for name in changed:
                setattr(solution, name, getattr(record, name))
            solution.save(update_fields=[*changed, "updated_at"])
    summary.labels_created = paper_labels_ensure(contest=contest)
    return summary
