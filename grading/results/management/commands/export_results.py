from django.core.management.base import BaseCommand

from grading.resolution.comparison import contest_results
from grading.results import exports
from grading.results.management.export_arguments import (
    add_export_arguments,
    add_identities_argument,
    export_target,
)
from grading.results.selectors import automatic_scores, provisional_lines


class Command(BaseCommand):
    help = (
        "Export a contest's results as CSV or XLSX: the wide table (one row per paper: labels, "
        "points per problem, total, an AI paper's automatic score, medal, rank, provisional "
        "flag) or, with --long, one row per "
        "paper, problem and criterion with each juror's mark and how the value was agreed. "
        "--identities adds the systems' identities, only once the contest is final."
    )

    def add_arguments(self, parser):
        add_export_arguments(parser, exports.FORMATS)
        parser.add_argument("--long", action="store_true", help="One row per criterion.")
        add_identities_argument(parser)

    def handle(self, *args, contest, format, out, long, identities, verbosity, **options):
        contest_obj, path = export_target(contest=contest, out=out, identities=identities)
        results = contest_results(contest_obj, identities=identities, with_marks=long)
        content = exports.results_export(
            results,
            long=long,
            identities=identities,
            fmt=format,
            provisional=provisional_lines(contest_obj),
            automatic=None if long else automatic_scores(contest_obj),
        )
        path.write_bytes(content)
        if verbosity >= 1:
            rows = len(results.papers) * (len(results.criteria) if long else 1)
            flag = " (provisional)" if any(p.provisional for p in results.papers) else ""
            self.stdout.write(
                self.style.SUCCESS(f"Wrote {rows} rows{flag} of {contest_obj.name} to {path}.")
            )
