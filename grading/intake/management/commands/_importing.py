"""What the import commands share: a progress bar on a terminal, refusing with every sentence
of an ImportProblems, and the frame of a one-CSV-file import into a contest."""

import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from grading.rules.refusals import Refusal
from rubrics.models import Contest


def progress_for(command: BaseCommand, verbosity: int):
    """A tqdm bar (on stderr, so that stdout stays clean for the summary) when a person is
    watching; None otherwise, when the summary line's counts say what happened."""
    if verbosity < 1 or not command.stdout.isatty():
        return None

    def bar(items, total, description):
        return tqdm(items, total=total, desc=description, leave=False, file=sys.stderr)

    return bar


def refuse(error: ValidationError) -> CommandError:
    if isinstance(error, Refusal):
        # A refusal (a final contest) is not a list of things to fix in the files: its one
        # sentence says what stands in the way and who can lift it.
        return CommandError(" ".join(error.messages))
    sentences = "\n".join(f"  - {sentence}" for sentence in error.messages)
    return CommandError(f"Nothing was imported; fix these first:\n{sentences}")


class ContestCsvImportCommand(BaseCommand):
    """A command that reads one UTF-8 CSV file into a contest through an all-or-nothing service.

    Subclasses set `help` and implement `run_import` (the service call) and `detail_lines`
    (what `-v2` lists)."""

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument("file", help="The CSV file.")
        parser.add_argument("--dry-run", action="store_true", help="Check the file, write nothing.")

    def run_import(self, *, contest: Contest, text: str, name: str, dry_run: bool):
        raise NotImplementedError

    def detail_lines(self, summary) -> list[str]:
        return []

    def handle(self, *args, contest, file, dry_run, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        path = Path(file)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise CommandError(f"There is no file {file}.") from None
        except UnicodeDecodeError:
            raise CommandError(f"{path.name} is not UTF-8 text; save it as UTF-8 CSV.") from None
        try:
            summary = self.run_import(
                contest=contest_obj, text=text, name=path.name, dry_run=dry_run
            )
        except ValidationError as error:
            raise CommandError("\n".join(error.messages)) from None
        if verbosity >= 2:
            for line in self.detail_lines(summary):
                self.stdout.write(line)
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(str(summary)))
