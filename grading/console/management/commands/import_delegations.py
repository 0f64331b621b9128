from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.console.delegations import delegations_import
from grading.intake.management.commands._importing import refuse
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Put a contest's human contestants in their delegations from a CSV file of "
        "“delegation, contestant code[, country]” rows (a header row first; one delegation's "
        "rows name one country), creating the delegations the "
        "contest lacks. All-or-nothing: every problem is listed, naming its row and column, and "
        "nothing is written. The console's imports page calls the same service."
    )

    def add_arguments(self, parser):
        parser.add_argument("contest", help="Slug of the contest.")
        parser.add_argument("file", help="The CSV file.")
        parser.add_argument("--dry-run", action="store_true", help="Check the file, write nothing.")

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
            summary = delegations_import(
                contest=contest_obj, text=text, name=path.name, actor=None, dry_run=dry_run
            )
        except ValidationError as error:
            raise refuse(error) from None
        if verbosity >= 2:
            for line in summary.detail_lines():
                self.stdout.write(line)
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(summary.line()))
