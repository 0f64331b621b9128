from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.console.contest_life import contest_reopen
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Reopen a final contest, with a reason that stays on record: it goes back to the "
        "resolution phase, where the chair can change decisions and finalize it again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, metavar="SLUG", help="The contest's slug.")
        # Not required by argparse: the service's own sentence explains a missing reason.
        parser.add_argument(
            "--reason", default="", help="Why the contest is reopened (kept on record)."
        )

    def handle(self, *args, contest, reason, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        try:
            contest_obj = contest_reopen(contest=contest_obj, actor=None, reason=reason)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(
                    f"{contest_obj.name} is reopened, in the resolution phase; "
                    "the chair can finalize it again."
                )
            )
