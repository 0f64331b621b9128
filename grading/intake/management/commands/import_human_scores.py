from grading.intake.importers.human_scores import human_scores_import
from grading.intake.management.commands._importing import ContestCsvImportCommand


class Command(ContestCsvImportCommand):
    help = (
        "Import human contestants' per-problem points from a CSV file (columns: contestant, "
        "p1, p2, … or contestant, 1, 2, …) for the equivalent rank of AI papers. Replaces the "
        "contest's earlier human scores; all-or-nothing."
    )

    def run_import(self, *, contest, text, name, dry_run):
        return human_scores_import(contest=contest, text=text, name=name, dry_run=dry_run)

    def detail_lines(self, summary):
        return [f"{score.contestant}: {score.total}" for score in summary.scores]
