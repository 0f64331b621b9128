from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.intake.management.commands._importing import progress_for, refuse
from grading.intake.scans.importing import scans_import
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Import human contestants' scanned papers (PDF files) into a contest. Pages are sorted by "
        "the answer-sheet covers in them (print_covers): a cover starts a contestant's answer "
        "to a problem, and the pages after it belong to it until the next cover. Scans without "
        "covers are sorted by --page-map, a CSV file,problem,first_page,last_page in which each "
        "file is named by its contestant's code (a fifth column, language, gives the "
        "contestant's answer language). Stored pages are upright, their top band "
        "masked, without metadata. All-or-nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("contest", metavar="SLUG", help="The contest's slug.")
        parser.add_argument("files", nargs="+", type=Path, metavar="PDF")
        parser.add_argument("--page-map", type=Path, metavar="CSV")

    def handle(self, *args, contest, files, page_map, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        for path in [*files, *([page_map] if page_map else [])]:
            if not path.is_file():
                raise CommandError(f"There is no file {path}.")
        try:
            summary = scans_import(
                contest=contest_obj,
                files=files,
                page_map=page_map,
                actor=None,
                progress=progress_for(self, verbosity),
            )
        except ValidationError as error:
            raise refuse(error) from None
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(summary.line()))
