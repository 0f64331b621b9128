from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand

from grading.intake.importers import outputs_import
from grading.intake.management.commands._importing import progress_for, refuse


class Command(BaseCommand):
    help = (
        "Import AI systems' outputs into a contest as anonymous papers. Each PATH is a competition "
        "record folder (predictions.json + metadata.json), a submission CSV (id,pred[,explanation]) "
        'or a JSONL of raw outputs ({"system", "id", "output"}). A system imported before '
        "keeps its paper and has its solutions updated. All-or-nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, metavar="SLUG", help="The contest's slug.")
        parser.add_argument(
            "--system",
            metavar="NAME",
            help="The system of a submission CSV (default: the file name without extension), "
            'and of raw-output lines without a "system" field.',
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Check and report, but write nothing."
        )
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")

    def handle(self, *args, contest, system, dry_run, paths, verbosity, **options):
        try:
            summary = outputs_import(
                contest_slug=contest,
                paths=paths,
                system=system,
                dry_run=dry_run,
                progress=progress_for(self, verbosity),
            )
        except ValidationError as error:
            raise refuse(error) from None
        if verbosity >= 2:
            for line in summary.systems:
                self.stdout.write(line.line())
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(summary.line()))
