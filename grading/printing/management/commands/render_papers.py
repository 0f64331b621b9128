import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import ngettext
from tqdm import tqdm

from grading.printing import batch as pdf_batch
from grading.printing import pdf
from grading.printing import selectors as pdf_selectors
from grading.rules import access
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Write the anonymized PDF printout of every paper of a contest, one file per paper and "
        "problem (e.g. demo-p3-K7QX.pdf), rendered in a pool of worker processes. --problem keeps one problem, "
        "--juror only the papers assigned to that juror. Files already rendered with the same "
        "content come from the cache, which this command also fills for the web downloads."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument("--problem", type=int, help="Only this problem number.")
        parser.add_argument("--juror", help="Only the papers assigned to this juror (username).")
        parser.add_argument("--out", required=True, help="Folder to write the PDFs to.")
        parser.add_argument(
            "--criteria",
            action="store_true",
            help="Add a last page with the problem's criteria and an empty box each.",
        )
        parser.add_argument(
            "--bundle",
            action="store_true",
            help="Also write one PDF per problem with all its papers (e.g. demo-p3-all-papers.pdf).",
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=settings.PRINT_WORKERS,
            help="Worker processes (default: PRINT_WORKERS, at most two unless set).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="List the files it would write, render none."
        )

    def handle(self, *args, **options):
        started = time.perf_counter()
        verbosity = options["verbosity"]
        if options["jobs"] < 1:
            raise CommandError(f"--jobs must be at least 1, not {options['jobs']}.")
        problems, juror = self._scope(options)
        out = Path(options["out"])

        # Everything that needs the database happens here, in this process: the workers get
        # finished HTML and never open a connection.
        jobs = []
        for problem in problems:
            data = pdf_selectors.problem_print(problem=problem, juror=juror)
            htmls = pdf.problem_htmls(data, with_criteria=options["criteria"])
            for label, html in htmls:
                jobs.append(
                    pdf_batch.RenderJob.paper(
                        html,
                        out=str(
                            out / pdf.paper_filename(problem, label, marking=options["criteria"])
                        ),
                    )
                )
            if options["bundle"] and htmls:
                name = pdf.bundle_filename(
                    problem, mine=juror is not None, marking=options["criteria"]
                )
                jobs.append(
                    pdf_batch.RenderJob.bundle(
                        [html for _, html in htmls],
                        title=pdf.bundle_title(problem, count=len(htmls)),
                        out=str(out / name),
                    )
                )
        if not jobs:
            raise CommandError("There is no paper to print with these options.")

        if options["dry_run"]:
            if verbosity >= 2:
                for job in jobs:
                    self.stdout.write(job.out)
            self.stdout.write(
                self.style.SUCCESS(
                    f"Would write {ngettext('%d PDF', '%d PDFs', len(jobs)) % len(jobs)} "
                    f"to {out} for "
                    f"{ngettext('%d problem', '%d problems', len(problems)) % len(problems)}; "
                    "nothing was written."
                )
            )
            return

        out.mkdir(parents=True, exist_ok=True)
        workers = options["jobs"]
        stats = self._render(jobs, workers=workers, verbosity=verbosity)
        elapsed = time.perf_counter() - started
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {ngettext('%d PDF', '%d PDFs', len(jobs)) % len(jobs)} to {out} for "
                    f"{ngettext('%d problem', '%d problems', len(problems)) % len(problems)}: "
                    f"{stats.rendered} rendered, {stats.cached} from the cache, "
                    f"in {elapsed:.1f} s on up to "
                    f"{ngettext('%d process', '%d processes', workers) % workers}."
                )
            )

    def _scope(self, options):
        slug = options["contest"]
        try:
            contest = Contest.objects.get(slug=slug)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{slug}”.") from None
        problems = list(contest.problems.select_related("contest").order_by("number"))
        if options["problem"] is not None:
            chosen = [p for p in problems if p.number == options["problem"]]
            if not chosen:
                known = ", ".join(str(p.number) for p in problems) or "none"
                raise CommandError(
                    f"Contest {slug} has no problem {options['problem']}; its problems are {known}."
                )
            problems = chosen
        juror = None
        if options["juror"]:
            try:
                juror = get_user_model().objects.get(username=options["juror"])
            except get_user_model().DoesNotExist:
                raise CommandError(f"There is no user “{options['juror']}”.") from None
            assigned = set(
                access.graded_assignments(juror)
                .filter(problem__in=problems)
                .values_list("problem_id", flat=True)
            )
            problems = [p for p in problems if p.pk in assigned]
            if not problems:
                raise CommandError(
                    f"{juror.username} has no papers assigned in contest {slug}"
                    + (f", problem {options['problem']}." if options["problem"] else ".")
                )
        return problems, juror

    def _render(self, jobs, *, workers, verbosity):
        total = len(jobs)
        if verbosity >= 1 and self.stdout.isatty():
            with tqdm(total=total, unit="pdf", desc="Rendering") as bar:
                return pdf_batch.render_jobs(
                    jobs, workers=workers, progress=lambda job: bar.update()
                )
        done = 0
        # Without a terminal (logs, CI), a count at every tenth of the work.
        step = max(1, -(-total // 10))

        def count(job):
            nonlocal done
            done += 1
            if verbosity >= 1 and done < total and done % step == 0:
                self.stdout.write(f"{done} of {total} PDFs done")

        return pdf_batch.render_jobs(jobs, workers=workers, progress=count)
