from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import ngettext

from grading.assigning.moves import juror_back, juror_leaving_make, juror_leaving_plan
from grading.rules import roles
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Mark a juror unavailable from now and move their ungraded papers of a contest to "
        "colleagues of each problem's grading group (never to one who has submitted the "
        "problem, is in conflict with the paper or has it already); their graded papers stay "
        "theirs. Each move is on record with the organizer who made it and the reason. With "
        "--back, a juror who left is available again: they take new papers from now."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, metavar="SLUG", help="The contest's slug.")
        parser.add_argument("--juror", required=True, metavar="USERNAME", help="Who leaves.")
        # Not required by argparse: the service's own sentence explains a missing reason.
        parser.add_argument("--reason", default="", help="Why (kept with each move).")
        parser.add_argument(
            "--actor",
            metavar="USERNAME",
            default="",
            help="The organizer on record for the moves (default: the only active organizer).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Show the plan, write nothing.")
        parser.add_argument(
            "--back",
            action="store_true",
            help="The juror comes back: they take new papers from now (nothing moves back).",
        )

    def handle(self, *args, contest, juror, reason, actor, dry_run, back, verbosity, **options):
        users = get_user_model().objects
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        leaving = users.filter(username=juror).first()
        if leaving is None:
            raise CommandError(f"There is no juror “{juror}”.")
        actor_obj = self._actor(users, actor)
        if back:
            try:
                juror_back(juror=leaving, actor=actor_obj)
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from None
            if verbosity >= 1:
                self.stdout.write(
                    self.style.SUCCESS(f"{leaving.username} is available again from now.")
                )
            return
        try:
            if dry_run:
                plan = juror_leaving_plan(contest=contest_obj, juror=leaving, actor=actor_obj)
            else:
                plan = juror_leaving_make(
                    contest=contest_obj, juror=leaving, actor=actor_obj, reason=reason
                )
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        if verbosity >= 1:
            for sentence in plan.sentences():
                self.stdout.write(sentence)
            if verbosity >= 2:
                for move in plan.moves:
                    self.stdout.write(f"P{move.problem_number} {move.label} → {move.to_username}")
            moved = len(plan.moves)
            counted = ngettext("%d paper", "%d papers", moved) % moved
            if dry_run:
                line = f"Dry run, nothing written: {counted} would move from {leaving.username}."
            else:
                line = f"{leaving.username} is unavailable from now; {counted} moved."
            self.stdout.write(self.style.SUCCESS(line))

    @staticmethod
    def _actor(users, username: str):
        if username:
            found = users.filter(username=username).first()
            if found is None:
                raise CommandError(f"There is no user “{username}” to put on record.")
            return found
        organizers = list(users.filter(groups__name=roles.ORGANIZER, is_active=True)[:2])
        if len(organizers) != 1:
            raise CommandError(
                "Name the organizer on record for the moves with --actor USERNAME "
                f"(there are {'several' if organizers else 'no'} active organizers)."
            )
        return organizers[0]
