from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand

from grading.intake.importers import problemset_import
from grading.intake.management.commands._importing import progress_for, refuse


class Command(BaseCommand):
    help = (
        "Create or update a contest's problems and tasks from the IOL-AI competition's test.csv "
        "and solution.csv, or from one Linguini-style JSONL file. Everything is checked first and "
        "written all at once; re-running with the same files changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, metavar="SLUG", help="The contest's slug.")
        parser.add_argument("--name", help="The contest's name (default: the slug).")
        parser.add_argument(
            "--dry-run", action="store_true", help="Check and report, but write nothing."
        )
        parser.add_argument(
            "paths",
            nargs="+",
            type=Path,
            metavar="FILE",
            help="test.csv solution.csv, or dataset.jsonl",
        )

    def handle(self, *args, contest, name, dry_run, paths, verbosity, **options):
        try:
            summary = problemset_import(
                contest_slug=contest,
                paths=paths,
                name=name,
                dry_run=dry_run,
                progress=progress_for(self, verbosity),
            )
        except ValidationError as error:
            raise refuse(error) from None
        if verbosity >= 2:
            for external_id in summary.tasks_changed:
                self.stdout.write(f"Task {external_id} {'would change' if dry_run else 'changed'}.")
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(summary.line()))
