from grading.intake.importers.criterion_rates import criterion_rates_import
from grading.intake.management.commands._importing import ContestCsvImportCommand


class Command(ContestCsvImportCommand):
    help = (
        "Import the share of human contestants who met each criterion in full, from a CSV file "
        "with columns “problem, criterion, share_met” or “criterion, share_met” (criterion as "
        "P3.A1), for the criterion-difficulty comparison of the analysis page. Replaces the "
        "contest's earlier rates; all-or-nothing."
    )

    def run_import(self, *, contest, text, name, dry_run):
        return criterion_rates_import(contest=contest, text=text, name=name, dry_run=dry_run)

    def detail_lines(self, summary):
        return [
            f"{rate.criterion.problem.code}.{rate.criterion.code}: {rate.share_met}"
            for rate in summary.rates
        ]
