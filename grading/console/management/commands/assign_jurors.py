import re
import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.assigning.assignments import assignments_create
from rubrics.models import Contest

OVERRIDE = re.compile(r"^\s*(\d+)\s*=\s*(\d+)\s*$")


class Command(BaseCommand):
    help = (
        "Assign every paper of a contest, in each problem, to jurors of the problem's grading "
        "group: no juror on their own country's contestants, capacities kept, loads balanced, "
        "jurors who read a paper's language first. Existing assignments are kept; each juror's "
        "sheet is created. Prints what the plan could not do and each pick whose juror reads "
        "the paper's language only with help or not at all. Refuses, writing nothing, when a "
        "group has too few jurors or papers would lack one."
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
        parser.add_argument(
            "--load-slack",
            type=int,
            default=0,
            metavar="PAPERS",
            help="Papers a juror may take beyond the even share, so that those who read a "
            "paper's language take more of them (default 0: loads as even as can be).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Show the loads, write nothing.")

    def handle(
        self, *args, contest, per_problem, problem, dry_run, load_slack, verbosity, **options
    ):
        overrides = self._overrides(problem)
        if load_slack < 0:
            raise CommandError(f"--load-slack is a number of papers, 0 or more, not {load_slack}.")
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        bar = _ProgressBar(self, verbosity)
        try:
            summary = assignments_create(
                contest=contest_obj,
                per_problem=per_problem,
                overrides=overrides,
                dry_run=dry_run,
                load_slack=load_slack,
                progress=bar.update,
            )
        except ValidationError as error:
            raise CommandError("\n".join(error.messages)) from None
        finally:
            bar.close()
        if verbosity >= 1:
            for line in summary.problems:
                self.stdout.write(str(line))
                for sentence in line.problems:
                    self.stdout.write(f"  {sentence}")
                for label, username, fit in line.flagged:
                    self.stdout.write(f"  {label} → {username}: {fit.replace('_', ' ')}")
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


class _ProgressBar:
    """A bar of the problems planned (on stderr, so that stdout stays the summary) when a
    person watches a terminal, as the import commands show theirs; nothing otherwise."""

    def __init__(self, command: BaseCommand, verbosity: int):
        self.watching = verbosity >= 1 and command.stdout.isatty()
        self.bar = None

    def update(self, done: int, total: int) -> None:
        if not self.watching:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="Problems planned", leave=False, file=sys.stderr)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
