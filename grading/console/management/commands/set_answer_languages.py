from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.console.answer_languages import answer_languages_set
from grading.console.management.commands._lines import read_lines_file, refuse
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Set or correct the answer languages of a contest's human papers from a file of "
        "“code, language” lines (the paper's public code or the contestant's code). "
        "All-or-nothing: every problem is listed, naming its line and column, and nothing is "
        "written. The console's answer languages page calls the same service."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument("--file", required=True, help="The lines, a UTF-8 CSV file.")
        parser.add_argument("--dry-run", action="store_true", help="Check the file, write nothing.")

    def handle(self, *args, contest, file, dry_run, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        text = read_lines_file(file)
        try:
            batch = answer_languages_set(
                contest=contest_obj, text=text, actor=None, dry_run=dry_run
            )
        except ValidationError as error:
            raise refuse(error) from None
        if verbosity >= 2:
            for line in batch.lines:
                self.stdout.write(
                    f"{line.paper.identity}: {line.language}"
                    f"{'' if line.changes else ' (unchanged)'}"
                )
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(batch.line(dry_run=dry_run)))
