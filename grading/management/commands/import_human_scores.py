from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.human_scores import human_scores_import
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Import human contestants' per-problem points from a CSV file (columns: contestant, "
        "p1, p2, … or contestant, 1, 2, …) for the equivalent rank of AI papers. Replaces the "
        "contest's earlier human scores; all-or-nothing."
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
            summary = human_scores_import(
                contest=contest_obj, text=text, name=path.name, dry_run=dry_run
            )
        except ValidationError as error:
            raise CommandError("\n".join(error.messages)) from None
        if verbosity >= 2:
            for score in summary.scores:
                self.stdout.write(f"{score.contestant}: {score.total}")
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(str(summary)))
