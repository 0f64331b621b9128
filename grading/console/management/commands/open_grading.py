from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.console.contest_life import contest_grading_open
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Open grading of a contest that is set up (problems imported, every problem with a "
        "grading scheme): jurors may then submit their sheets."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, metavar="SLUG", help="The contest's slug.")

    def handle(self, *args, contest, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        try:
            contest_obj = contest_grading_open(contest=contest_obj, actor=None)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(f"Grading of {contest_obj.name} is open; jurors may submit.")
            )
