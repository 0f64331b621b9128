from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from grading.resolution.comparison import contest_results
from grading.results import exports
from grading.results.selectors import automatic_scores, provisional_lines
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Export a contest's results as CSV or XLSX: the wide table (one row per paper: labels, "
        "points per problem, total, an AI paper's automatic score, medal, rank, provisional "
        "flag) or, with --long, one row per "
        "paper, problem and criterion with each juror's mark and how the value was agreed. "
        "--identities adds the systems' identities, only once the contest is final."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument("--format", required=True, choices=sorted(exports.FORMATS))
        parser.add_argument("--out", required=True, help="The file to write.")
        parser.add_argument("--long", action="store_true", help="One row per criterion.")
        parser.add_argument(
            "--identities", action="store_true", help="Add identity columns (final contests)."
        )

    def handle(self, *args, contest, format, out, long, identities, verbosity, **options):
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
