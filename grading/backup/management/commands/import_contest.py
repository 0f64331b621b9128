from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from grading.backup.archive import backup_open
from grading.backup.restore import contest_import


class _DryRun(Exception):
    pass


class Command(BaseCommand):
    help = (
        "Restore a contest from a file made by export_contest into a database that does not "
        "have it yet, all or nothing. Users missing here are created with their groups and an "
        "unusable password (set one with `manage.py changepassword`); existing users are left "
        "as they are. --dry-run checks the file and writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "file", help="The backup file (.zip, or .json or .json.gz as written before)."
        )
        parser.add_argument("--dry-run", action="store_true", help="Check the file, write nothing.")

    def handle(self, *args, file, dry_run, verbosity, **options):
        path = Path(file)
        try:
            with backup_open(path) as backup, transaction.atomic():
                summary = contest_import(
                    document=backup.document, pages=backup.pages, source=path.name, dry_run=dry_run
                )
                if dry_run:
                    raise _DryRun
        except ValidationError as error:
            sentences = "\n".join(f"  - {sentence}" for sentence in error.messages)
            raise CommandError(f"Nothing was imported:\n{sentences}") from None
        except _DryRun:
            if verbosity >= 1:
                self.stdout.write(self.style.SUCCESS(f"Dry run, nothing written. {summary}"))
            return
        if verbosity >= 2:
            for username in summary.users_created:
                self.stdout.write(f"Created user {username} (no usable password).")
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(str(summary)))
