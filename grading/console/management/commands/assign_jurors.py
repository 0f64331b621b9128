import re

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.assigning.assignments import assignments_create
from rubrics.models import Contest

OVERRIDE = re.compile(r"^\s*(\d+)\s*=\s*(\d+)\s*$")


class Command(BaseCommand):
    help = (
        "Assign every paper of a contest, in each problem, to jurors of the problem's grading "
        "group, balancing the jurors' loads. Existing assignments are kept; each juror's sheet "
        "is created. Refuses, writing nothing, when a group has too few jurors."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument(
            "--per-problem",
            type=int,
            default=2,
            help="Jurors per paper in each problem (default 2).",
        )
        parser.add_argument(
            "--problem",
            action="append",
            default=[],
            metavar="N=JURORS",
            help="Another number of jurors per paper for problem N, e.g. --problem 3=3; repeatable.",
        )
        parser.add_argument("--dry-run", action="store_true", help="Show the loads, write nothing.")

    def handle(self, *args, contest, per_problem, problem, dry_run, verbosity, **options):
        overrides = self._overrides(problem)
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        try:
            summary = assignments_create(
                contest=contest_obj,
                per_problem=per_problem,
                overrides=overrides,
                dry_run=dry_run,
            )
        except ValidationError as error:
            raise CommandError("\n".join(error.messages)) from None
        if verbosity >= 1:
            for line in summary.problems:
                self.stdout.write(str(line))
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(str(summary)))

    @staticmethod
    def _overrides(values: list[str]) -> dict[int, int]:
        overrides: dict[int, int] = {}
        errors = []
        for value in values:
            match = OVERRIDE.match(value)
            if not match:
                errors.append(
                    f"--problem “{value}” is not of the form N=JURORS; write e.g. --problem 3=3 "
                    "for three jurors per paper in problem 3."
                )
                continue
            number, count = int(match.group(1)), int(match.group(2))
            if number in overrides:
                errors.append(f"--problem gives problem {number} more than once.")
            overrides[number] = count
        if errors:
            raise CommandError("\n".join(errors))
        return overrides
