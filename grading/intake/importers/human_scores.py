"""Human contestants' points, imported from CSV for the equivalent rank of AI papers.

The file has one row per contestant: a `contestant` column and one column per problem, named
`p1, p2, ...` or `1, 2, ...`. The import is all-or-nothing and replaces the contest's earlier
human scores: one file is the whole list of contestants."""

import csv
import io
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import ngettext

from grading.models import HumanScore
from grading.rules.domain import points_text
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Contest
from rubrics.validators import parse_points

PROBLEM_COLUMN = re.compile(r"^p?(\d+)$", re.IGNORECASE)


@dataclass
class HumanImport:
    contest: Contest
    scores: list[HumanScore]
    replaced: int
    dry_run: bool

    def __str__(self):
        verb = "Would import" if self.dry_run else "Imported"
        count = len(self.scores)
        contestants = ngettext("%d human contestant", "%d human contestants", count) % count
        return f"{verb} {contestants} for {self.contest.name} (replacing {self.replaced})."


def human_scores_parse(*, contest: Contest, text: str, name: str = "the file") -> list[HumanScore]:
    """Read and check every row; raise one ValidationError listing every problem found."""
    problems = {problem.number: problem for problem in contest.problems.all()}
    total_max = sum((p.max_points for p in problems.values()), Decimal("0"))
    scale = contest.max_total / total_max if total_max else Decimal("1")
    rows = _csv_rows(text.lstrip("\ufeff"), name)
    header = rows[0][1] if rows else None
    if not header:
        raise ValidationError(f"{name} is empty; expected a header row “contestant, p1, p2, …”.")
    header = [column.strip() for column in header]
    errors = []
    if "contestant" not in [column.lower() for column in header]:
        errors.append(f"{name}, row 1: there is no “contestant” column.")
    columns: dict[int, int] = {}
    for index, column in enumerate(header):
        if column.lower() == "contestant":
            continue
        match = PROBLEM_COLUMN.match(column)
        if not match:
            errors.append(
                f"{name}, row 1, column {index + 1}: “{column}” is neither “contestant” "
                "nor a problem such as “p1” or “1”."
            )
            continue
        number = int(match.group(1))
        if number not in problems:
            errors.append(
                f"{name}, row 1, column “{column}”: {contest.name} has no problem {number}."
            )
        elif number in columns:
            errors.append(f"{name}, row 1: problem {number} has two columns.")
        else:
            columns[number] = index
    for number in sorted(set(problems) - set(columns)):
        errors.append(f"{name}, row 1: there is no column for problem {number} (“p{number}”).")
    if errors:
        raise ValidationError(errors)
    who = [c.lower() for c in header].index("contestant")
    scores, seen = [], {}
    for row_number, (_, row) in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        row = row + [""] * (len(header) - len(row))
        contestant = row[who].strip()
        if not contestant:
            errors.append(f"{name}, row {row_number}: the contestant is blank.")
        elif contestant in seen:
            errors.append(
                f"{name}, row {row_number}: contestant “{contestant}” is already on row "
                f"{seen[contestant]}."
            )
        else:
            seen[contestant] = row_number
        points = {}
        for number, index in sorted(columns.items()):
            where = f"{name}, row {row_number}, column “{header[index]}”"
            try:
                value = parse_points(row[index], where=where)
            except ValidationError as error:
                errors.extend(error.messages)
                continue
            maximum = problems[number].max_points
            if value is None:
                errors.append(f"{where}: the points are blank; write 0 for no points.")
            elif value < 0 or value > maximum:
                errors.append(
                    f"{where}: {points_text(value)} is outside 0 to "
                    f"{points_text(maximum)}, "
                    f"the points of problem {number}."
                )
            else:
                points[str(number)] = points_text(value)
        if len(points) == len(columns) and contestant:
            total = sum((Decimal(v) for v in points.values()), Decimal("0")) * scale
            scores.append(
                HumanScore(
                    contest=contest,
                    contestant=contestant,
                    problem_points=points,
                    total=total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP),
                )
            )
    if errors:
        raise ValidationError(errors)
    if not scores:
        raise ValidationError(f"{name} has a header but no contestant rows.")
    return scores


def _csv_rows(text: str, name: str) -> list[tuple[int, list[str]]]:
    """(first line, cells) of every row. Strict: an unbalanced quote is refused as what it is,
    not read as one cell that swallows the rows after it (they would be reported blank)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = []
    try:
        while True:
            start = reader.line_num + 1
            rows.append((start, next(reader)))
    except StopIteration:
        return rows
    except csv.Error as error:
        raise ValidationError(
            f"{name}, line {start}: malformed CSV ({error}), in the row that starts on this "
            "line; check its quotes."
        ) from None


@transaction.atomic
def human_scores_import(
    *, contest: Contest, text: str, name: str = "the file", dry_run: bool = False
) -> HumanImport:
    """Replace the contest's human scores with the file's, or write nothing on any error."""
    contest = refuse_if_final_now(contest, what="its results, equivalent ranks included,")
    scores = human_scores_parse(contest=contest, text=text, name=name)
    replaced = HumanScore.objects.filter(contest=contest).count()
    if not dry_run:
        HumanScore.objects.filter(contest=contest).delete()
        HumanScore.objects.bulk_create(scores)
    return HumanImport(contest=contest, scores=scores, replaced=replaced, dry_run=dry_run)
