from django.core.management.base import BaseCommand

from grading.results import jury_evaluation_files as files
from grading.results.jury_evaluations import jury_evaluations
from grading.results.management.export_arguments import (
    add_export_arguments,
    add_identities_argument,
    export_target,
)


class Command(BaseCommand):
    help = (
        "Export the jury's own marks: one row per juror, paper and criterion with the mark as "
        "submitted (before any discussion), the mark after revision, the cell's agreed value, "
        "how the cell was settled and the scheme version. CSV (the table alone), XLSX (with a "
        "README sheet) or zip (the CSV and a README.txt). --identities adds the systems' "
        "identities, only once the contest is final."
    )

    def add_arguments(self, parser):
        add_export_arguments(parser, files.FORMATS)
        add_identities_argument(parser)

    def handle(self, *args, contest, format, out, identities, verbosity, **options):
        contest_obj, path = export_target(contest=contest, out=out, identities=identities)
        data = jury_evaluations(contest_obj, identities=identities)
        path.write_bytes(files.jury_evaluations_export(data, fmt=format))
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {len(data.rows)} jury evaluations of {contest_obj.name} to {path}."
                )
            )
