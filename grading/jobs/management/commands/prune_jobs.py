from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import ngettext

from grading.jobs.running import jobs_prune


class Command(BaseCommand):
    help = (
        "Delete the files of background jobs that finished (done or failed) more than --days "
        "ago, and the folders of jobs deleted in the admin; never a waiting or running job's. "
        "The jobs stay on record, their pages saying the file was removed; starting a job "
        "again makes its file anew. The task worker does this by itself about once a day."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--days",
            type=int,
            default=settings.JOBS_KEEP_DAYS,
            help="Delete the files of jobs finished this many days ago or more "
            f"(default JOBS_KEEP_DAYS, now {settings.JOBS_KEEP_DAYS}; 0: every finished job's).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Say what would be deleted, delete nothing."
        )

    def handle(self, *args, days, dry_run, verbosity, **options):
        if days < 0:
            raise CommandError(f"--days must be 0 or more, not {days}.")
        stats = jobs_prune(older_than=timedelta(days=days), dry_run=dry_run)
        if verbosity >= 1:
            verb = "Would delete" if dry_run else "Deleted"
            size = stats.bytes / 1_000_000
            self.stdout.write(
                self.style.SUCCESS(
                    f"{verb} the files of {ngettext('%d job', '%d jobs', stats.jobs) % stats.jobs} "
                    f"finished {days} days ago or more and "
                    f"{ngettext('%d folder', '%d folders', stats.orphans) % stats.orphans} "
                    f"of deleted jobs ({size:.1f} MB) "
                    f"in {settings.JOBS_DIR}."
                )
            )
