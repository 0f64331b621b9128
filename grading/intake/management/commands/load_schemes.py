from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.intake.schemes import scheme_load
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Load a contest's grading schemes from a folder of p<N>.toml files (one per problem). "
        "Everything is checked first and written in one transaction; an unchanged scheme writes "
        "nothing, and changing points under marks already given is refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="Folder holding p1.toml, p2.toml, …")
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Check and report, write nothing."
        )

    def handle(self, *args, directory, contest, dry_run, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        try:
            summary = scheme_load(contest=contest_obj, directory=directory, dry_run=dry_run)
        except ValidationError as error:
            raise CommandError("\n".join(error.messages)) from None
        for change in summary.problems:
            # The changes are what one wants to read; unchanged problems only when asked.
            if verbosity >= 2 or (verbosity >= 1 and not change.unchanged):
                self.stdout.write(str(change))
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(str(summary)))
