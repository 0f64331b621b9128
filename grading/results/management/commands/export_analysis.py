from django.core.management.base import BaseCommand, CommandError

from grading.results import analysis_exports
from grading.results.analysis import contest_analysis
from grading.results.analysis_selectors import analysis_data
from grading.results.analysis_tables import analysis_tables
from grading.results.management.export_arguments import (
    add_export_arguments,
    add_identities_argument,
    export_target,
)


class Command(BaseCommand):
    help = (
        "Export a contest's jury-versus-automatic analysis, the analysis page's tables: papers "
        "(automatic against jury per problem and in total, with the signed differences), "
        "correlations (Spearman, Pearson, ranges per problem and for the totals), difficulty "
        "and difficulty_correlation (criteria for humans and AI systems), agreement (before "
        "resolution) and, with --calibration, each juror's deviation. --format csv writes one "
        "table (--table), zip every table's CSV with a README.csv, xlsx one workbook with a "
        "README sheet. --identities adds the systems' identities, only once the contest is "
        "final."
    )

    def add_arguments(self, parser):
        add_export_arguments(parser, analysis_exports.FORMATS)
        parser.add_argument(
            "--table",
            default="papers",
            choices=analysis_exports.table_names(calibration=True),
            help="With --format csv: the table to write (papers by default).",
        )
        add_identities_argument(parser)
        parser.add_argument(
            "--calibration",
            action="store_true",
            help="Add the calibration table, each juror by name (the chair's, on the page).",
        )

    def handle(
        self, *args, contest, format, out, table, identities, calibration, verbosity, **options
    ):
        contest_obj, path = export_target(contest=contest, out=out, identities=identities)
        if format == "csv" and table == "calibration" and not calibration:
            raise CommandError("The calibration table names jurors: add --calibration for it.")
        data = analysis_data(contest_obj, identities=identities)
        analysis = contest_analysis(data, identities=identities, calibration=calibration)
        tables = analysis_tables(analysis, data)
        content = analysis_exports.analysis_export(
            tables,
            fmt=format,
            stem=f"{contest_obj.slug}-analysis",
            table=table if format == "csv" else "",
        )
        path.write_bytes(content)
        if verbosity >= 1:
            written = [table] if format == "csv" else [each.name for each in tables]
            flag = " (provisional)" if any(row.provisional for row in analysis.papers) else ""
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote the analysis of {contest_obj.name}{flag} to {path}: "
                    f"{len(analysis.papers)} AI papers; tables {', '.join(written)}."
                )
            )
