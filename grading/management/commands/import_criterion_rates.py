from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.criterion_rates import criterion_rates_import
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Import the share of human contestants who met each criterion in full, from a CSV file "
        "with columns “problem, criterion, share_met” or “criterion, share_met” (criterion as "
        "P3.A1), for the criterion-difficulty comparison of the analysis page. Replaces the "
        "contest's earlier rates; all-or-nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument("file", help="The CSV file.")
        parser.add_argument("--dry-run", action="store_true", help="Check the file, write nothing.")

    def handle(self, *args, contest, file, dry_run, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        path = Path(file)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CommandError(f"There is no file {file}.") from None
        except UnicodeDecodeError:
            raise CommandError(f"{path.name} is not UTF-8 text; save it as UTF-8 CSV.") from None
        try:
            summary = criterion_rates_import(
                contest=contest_obj, text=text, name=path.name, dry_run=dry_run
            )
        except ValidationError as error:
            raise CommandError("\n".join(error.messages)) from None
        if verbosity >= 2:
            for rate in summary.rates:
                criterion = rate.criterion
                self.stdout.write(f"{criterion.problem.code}.{criterion.code}: {rate.share_met}")
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(str(summary)))
