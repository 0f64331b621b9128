from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.demo.grading import demo_finish_grading
from grading.demo.loader import demo_load, demo_reset


class Command(BaseCommand):
    help = (
        "Load the demo contest (slug “demo”): five invented-language problems, six AI systems "
        "and four human contestants' scanned papers through the real importers, users, grading groups, assignments and part of the "
        "grading. Does nothing when the demo is already loaded. Prints the demo log-ins."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Load everything, report, then roll back."
        )
        parser.add_argument(
            "--reset",
            action="store_true",
            help="Delete the demo contest (and everything it owns) and load it again, as new.",
        )
        parser.add_argument(
            "--finish-grading",
            action="store_true",
            help="Have every juror fill every blank cell and submit every sheet (with a few "
            "planted disagreements), so that the chair's part can be rehearsed.",
        )

    def handle(self, *args, verbosity, dry_run, reset, finish_grading, **options):
        if dry_run and (reset or finish_grading):
            raise CommandError("--reset and --finish-grading cannot be combined with --dry-run.")
        if reset:
            try:
                demo_reset(stdout=self.stdout, verbosity=verbosity)
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from error
            if verbosity > 0:
                self.stdout.write(
                    self.style.SUCCESS("The demo contest was deleted and loaded anew.")
                )
        if finish_grading:
            self._finish(verbosity)
            return
        if reset:
            return
        try:
            summary = demo_load(stdout=self.stdout, verbosity=verbosity, dry_run=dry_run)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        if verbosity == 0:
            return
        if not summary["created"]:
            self.stdout.write(
                self.style.SUCCESS("The demo contest is already loaded; nothing changed.")
            )
            return
        prefix = "Dry run, rolled back: would load" if dry_run else "Loaded"
        self.stdout.write(
            self.style.SUCCESS(
                f"{prefix} the demo contest: {summary['problems']} problems, "
                f"{summary['tasks']} tasks, {summary['criteria']} criteria, "
                f"{summary['papers']} papers, {summary['assignments']} assignments, "
                f"{summary['marks_entered']} marks entered, "
                f"{summary['sheets_submitted']} sheets submitted."
            )
        )

    def _finish(self, verbosity):
        try:
            summary = demo_finish_grading(stdout=self.stdout if verbosity > 1 else None)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        if verbosity == 0:
            return
        if summary["already_done"]:
            self.stdout.write(
                self.style.SUCCESS(
                    "Every sheet of the demo is already submitted; nothing changed "
                    f"({summary['open_discrepancies']} open discrepancies)."
                )
            )
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"Finished the demo's grading: {summary['sheets_submitted']} sheets submitted, "
                f"{summary['marks_entered']} marks entered, "
                f"{summary['open_discrepancies']} open discrepancies for the chair."
            )
        )
