import csv
import io
import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, OutputWrapper
from tqdm import tqdm

from grading.metrics import autoscore
from grading.metrics import rows as autoscore_rows
from grading.metrics.jury_selection import jury_selection_refuse_if_final, papers_select_for_jury
from grading.rules.spreadsheets import safe_text
from rubrics.models import Contest

# As Unix tools do, "-" names standard output rather than a file.
STDOUT = Path("-")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2f}"


class Command(BaseCommand):
    help = (
        "Score every AI paper of a contest with the IOL-AI competition's automatic metrics "
        "(exact match, chrF, score = √(EM × chrF)) over every task and per split, print the "
        "ranking with format diagnostics, and optionally write CSVs, with the competition's "
        "column names (score, public_*, private_split_*; app_* for the app's own figures), or "
        "select the top papers for jury grading. Human contestants' papers are left out: their "
        "answers are scanned pages, and every one of them is graded. The output shows "
        "systems' identities: it is for organizers."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="The contest's slug.")
        parser.add_argument(
            "--csv",
            dest="csv_path",
            type=Path,
            help=(
                "Write one row per paper to this CSV file (- for standard output), with the "
                "competition's column names: private_split_* is the private split alone, score "
                "the final score over both splits."
            ),
        )
        parser.add_argument(
            "--per-task",
            dest="per_task_path",
            type=Path,
            help="Write one row per paper and task to this CSV file (- for standard output).",
        )
        parser.add_argument(
            "--select-top",
            type=int,
            metavar="N",
            help=(
                "Mark the N best AI papers by score as selected for jury grading, the others not."
            ),
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="With --select-top: show which papers would be selected, change nothing.",
        )

    def handle(
        self, *args, contest, csv_path, per_task_path, select_top, dry_run, verbosity, **options
    ):
        found = Contest.objects.filter(slug=contest).first()
        if found is None:
            known = ", ".join(Contest.objects.order_by("slug").values_list("slug", flat=True))
            raise CommandError(
                f"There is no contest “{contest}”. Known contests: {known or 'none yet'}."
            )
        if select_top is not None and select_top < 0:
            raise CommandError(f"--select-top must be 0 or more, not {select_top}.")
        if csv_path == STDOUT and per_task_path == STDOUT:
            raise CommandError(
                "Only one of --csv and --per-task can write to standard output (-); give the "
                "other a file name."
            )
        # With a CSV on standard output, the messages go to standard error so that the output
        # can be piped or redirected as it is; unwrapped, as Django paints its stderr red.
        console = self.stdout
        if STDOUT in (csv_path, per_task_path):
            console = OutputWrapper(self.stderr._out)
        if select_top is not None:
            # Told before the scoring, which takes a while; the service checks again.
            try:
                jury_selection_refuse_if_final(found)
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from None

        progress = None
        if verbosity >= 1 and sys.stdout.isatty():

            def progress(papers):
                return tqdm(papers, desc="Scoring papers", unit="paper")

        results = autoscore.contest_autoscore(contest=found, progress=progress)
        if verbosity >= 1:
            self._print_table(results, console)

        if csv_path:
            self._write(csv_path, autoscore_rows.CSV_COLUMNS, autoscore_rows.csv_rows(results))
            if verbosity >= 1:
                console.write(f"Wrote {len(results)} papers to {self._name(csv_path)}.")
        if per_task_path:
            rows = autoscore_rows.per_task_rows(results)
            self._write(per_task_path, autoscore_rows.PER_TASK_COLUMNS, rows)
            if verbosity >= 1:
                console.write(f"Wrote {len(rows)} paper-task rows to {self._name(per_task_path)}.")

        summary = f"Scored {len(results)} papers of {found.slug}."
        if select_top is not None:
            top = results[:select_top]
            try:
                selected = papers_select_for_jury(
                    contest=found, paper_ids=[r.paper_id for r in top], dry_run=dry_run
                )
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from None
            if dry_run:
                summary += f" Dry run: would select {selected} papers for jury grading: " + (
                    ", ".join(r.identity for r in top) or "none"
                )
                summary += "."
            else:
                summary += f" Selected {selected} papers for jury grading."
        if verbosity >= 1:
            console.write(self.style.SUCCESS(summary))

    @staticmethod
    def _name(path: Path) -> str:
        return "standard output" if path == STDOUT else str(path)

    def _write(self, path: Path, columns: list[str], rows: list[dict]) -> None:
        # System names come from participants: no field may run as a formula when the file is
        # opened in a spreadsheet. The figures are never negative (scores and weights), so
        # passing them through the same rule leaves them as they are.
        safe_rows = [{key: safe_text(value) for key, value in row.items()} for row in rows]
        if path == STDOUT:
            buffer = io.StringIO(newline="")
            self._write_csv(buffer, columns, safe_rows)
            self.stdout.write(buffer.getvalue(), ending="")
            self.stdout.flush()
            return
        try:
            # With a byte-order mark, as the results exports: Excel on Windows reads the names
            # right then (standard output goes to programs, which want none).
            with path.open("w", newline="", encoding="utf-8-sig") as handle:
                self._write_csv(handle, columns, safe_rows)
        except OSError as error:
            raise CommandError(f"Cannot write {path}: {error.strerror}.") from None

    @staticmethod
    def _write_csv(handle, columns: list[str], rows: list[dict]) -> None:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)

    def _print_table(self, results, console) -> None:
        # As wide as the longest name: a cut name can hide which system is which.
        width = max([len("system"), *(len(r.identity) for r in results)])
        header = (
            f"{'rank':>4}  {'system':<{width}} {'score':>6} {'EM':>6} {'chrF':>6} "
            f"{'public':>6} {'private_split':>13} {'expl%':>6} {'fmt%':>6} {'empty':>5}  sel"
        )
        console.write(header)
        for r in results:
            d = r.diagnostics
            console.write(
                f"{r.rank:>4}  {r.identity:<{width}} {_pct(r.overall.score):>6} "
                f"{_pct(r.overall.exact_match):>6} {_pct(r.overall.chrf):>6} "
                f"{_pct(r.public.score):>6} {_pct(r.private.score):>13} "
                f"{_pct(d.explanation_rate):>6} {_pct(d.line_format_match_rate):>6} "
                f"{d.empty_tasks:>5}  {'yes' if r.selected_for_jury else ''}"
            )
