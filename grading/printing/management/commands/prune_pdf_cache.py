from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import ngettext

from grading.printing.pdf import cache_dir, cache_prune


class Command(BaseCommand):
    help = (
        "Delete the cached printouts nobody has downloaded for a while. Every change of a "
        "solution, scheme or template makes new files and leaves the old ones unread; this "
        "removes them. Safe at any time: a deleted printout is rendered again when asked for."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--days",
            type=int,
            default=30,
            help="Delete what has not been served for this many days (default 30; 0: all).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Say what would be deleted, delete nothing."
        )

    def handle(self, *args, days, dry_run, verbosity, **options):
        if days < 0:
            raise CommandError(f"--days must be 0 or more, not {days}.")
        stats = cache_prune(unused_for=timedelta(days=days), dry_run=dry_run)
        if verbosity >= 1:
            verb = "Would delete" if dry_run else "Deleted"
            size = stats.bytes / 1_000_000
            printouts = (
                ngettext("%d cached printout", "%d cached printouts", stats.files) % stats.files
            )
            self.stdout.write(
                self.style.SUCCESS(
                    f"{verb} {printouts} ({size:.1f} MB) unused for {days} days in {cache_dir()}."
                )
            )
