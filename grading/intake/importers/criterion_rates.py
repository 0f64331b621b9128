"""Human contestants' per-criterion success rates, imported from CSV for the criterion-difficulty
comparison of the analysis page.

One row per criterion: either `problem, criterion, share_met` (problem as `3` or `P3`, criterion
as its code `A1`) or `criterion, share_met` with the criterion written `P3.A1`. `share_met` is
the share of human contestants who met the criterion in full, between 0 and 1. The import is
all-or-nothing and replaces the contest's earlier rates: one file is the whole list."""

import csv
import io
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import ngettext

from grading.models import HumanCriterionRate
from grading.rules.phase import refuse_if_final_now
from rubrics.models import Contest, Criterion

PROBLEM = re.compile(r"^p?(\d+)$", re.IGNORECASE)
QUALIFIED = re.compile(r"^p?(\d+)\s*[.\s]\s*(\S+)$", re.IGNORECASE)
SHARE_PLACES = Decimal("0.0001")


@dataclass
class RateImport:
    contest: Contest
    rates: list[HumanCriterionRate]
    replaced: int
    dry_run: bool

    def __str__(self):
        verb = "Would import" if self.dry_run else "Imported"
        count = len(self.rates)
        return (
            f"{verb} human rates for {ngettext('%d criterion', '%d criteria', count) % count} of "
            f"{self.contest.name} (replacing {self.replaced})."
        )


def criterion_rates_parse(
    *, contest: Contest, text: str, name: str = "the file"
) -> list[HumanCriterionRate]:
    """Read and check every row; raise one ValidationError listing every problem found."""
    criteria = {
        (number, code.upper()): criterion
        for criterion, number, code in (
            (c, c.problem.number, c.code)
            for c in Criterion.objects.filter(problem__contest=contest).select_related("problem")
        )
    }
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = next(reader, None)
    if not header or not any(column.strip() for column in header):
        raise ValidationError(
            f"{name} is empty; expected a header row “problem, criterion, share_met” or "
            "“criterion, share_met”."
        )
    header = [column.strip().lower() for column in header]
    errors = []
    for required in ("criterion", "share_met"):
        if required not in header:
            errors.append(f"{name}, row 1: there is no “{required}” column.")
    for index, column in enumerate(header):
        if column not in ("problem", "criterion", "share_met"):
            errors.append(
                f"{name}, row 1, column {index + 1}: “{column}” is not one of “problem”, "
                "“criterion”, “share_met”."
            )
        elif header.index(column) != index:
            errors.append(f"{name}, row 1: the column “{column}” appears twice.")
    if errors:
        raise ValidationError(errors)
    at = {column: header.index(column) for column in header}
    rates, seen = [], {}
    for row_number, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        row = [cell.strip() for cell in row] + [""] * (len(header) - len(row))
        criterion = _criterion(row, at, criteria, contest, f"{name}, row {row_number}", errors)
        share = _share(row[at["share_met"]], f"{name}, row {row_number}, column “share_met”")
        if isinstance(share, str):
            errors.append(share)
        if criterion is None or isinstance(share, str):
            continue
        label = f"{criterion.problem.code}.{criterion.code}"
        if criterion.pk in seen:
            errors.append(
                f"{name}, row {row_number}: criterion {label} is already on row "
                f"{seen[criterion.pk]}."
            )
            continue
        seen[criterion.pk] = row_number
        rates.append(HumanCriterionRate(criterion=criterion, share_met=share))
    if errors:
        raise ValidationError(errors)
    if not rates:
        raise ValidationError(f"{name} has a header but no criterion rows.")
    return rates


def _criterion(row, at, criteria, contest, where, errors) -> Criterion | None:
    raw = row[at["criterion"]]
    if "problem" in at:
        problem_raw = row[at["problem"]]
        match = PROBLEM.match(problem_raw)
        if not match:
            errors.append(
                f"{where}, column “problem”: “{problem_raw}” is not a problem such as “3” or “P3”."
            )
            return None
        number, code = int(match.group(1)), raw
    else:
        match = QUALIFIED.match(raw)
        if not match:
            errors.append(
                f"{where}, column “criterion”: “{raw}” is not a criterion such as “P3.A1” "
                "(or add a “problem” column)."
            )
            return None
        number, code = int(match.group(1)), match.group(2)
    if not code:
        errors.append(f"{where}, column “criterion”: the criterion is blank.")
        return None
    criterion = criteria.get((number, code.upper()))
    if criterion is None:
        errors.append(
            f"{where}, column “criterion”: {contest.name} has no criterion {code} in problem "
            f"{number}."
        )
    return criterion


def _share(raw: str, where: str) -> Decimal | str:
    """The share as a Decimal with 4 places, or the sentence saying what is wrong with it."""
    if raw == "":
        return f"{where}: the share is blank; write a share between 0 and 1, e.g. 0.45."
    try:
        value = Decimal(raw.replace(",", "."))
    except InvalidOperation:
        return f"{where}: “{raw}” is not a number; write a share between 0 and 1, e.g. 0.45."
    if not value.is_finite() or value < 0 or value > 1:
        return f"{where}: {raw} is outside 0 to 1; write a share, e.g. 0.45 for 45%."
    return value.quantize(SHARE_PLACES, rounding=ROUND_HALF_UP)


@transaction.atomic
def criterion_rates_import(
    *, contest: Contest, text: str, name: str = "the file", dry_run: bool = False
) -> RateImport:
    """Replace the contest's human criterion rates with the file's, or write nothing on any
    error. A final contest refuses (`ContestFinal`), on a dry run too."""
    contest = refuse_if_final_now(contest, what="its human contestants' criterion rates")
    rates = criterion_rates_parse(contest=contest, text=text, name=name)
    existing = HumanCriterionRate.objects.filter(criterion__problem__contest=contest)
    replaced = existing.count()
    if not dry_run:
        existing.delete()
        HumanCriterionRate.objects.bulk_create(rates)
    return RateImport(contest=contest, rates=rates, replaced=replaced, dry_run=dry_run)
