from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from grading.results import jury_evaluation_files as files
from grading.results.jury_evaluations import jury_evaluations
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Export the jury's own marks: one row per juror, paper and criterion with the mark as "
        "submitted (before any discussion), the mark after revision, the cell's agreed value, "
        "how the cell was settled and the scheme version. CSV (the table alone), XLSX (with a "
        "README sheet) or zip (the CSV and a README.txt). --identities adds the systems' "
        "identities, only once the contest is final."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument("--format", required=True, choices=sorted(files.FORMATS))
        parser.add_argument("--out", required=True, help="The file to write.")
        parser.add_argument(
            "--identities", action="store_true", help="Add identity columns (final contests)."
        )

    def handle(self, *args, contest, format, out, identities, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        if identities and not contest_obj.is_final:
            raise CommandError(
                f"{contest_obj.name} is not final: identities stay hidden until the chair "
                "finalizes it."
            )
        path = Path(out)
        if not path.parent.is_dir():
            raise CommandError(f"The folder {path.parent} does not exist.")
        data = jury_evaluations(contest_obj, identities=identities)
        path.write_bytes(files.jury_evaluations_export(data, fmt=format))
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {len(data.rows)} jury evaluations of {contest_obj.name} to {path}."
                )
            )
