from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.intake.management.commands._importing import refuse
from grading.printing.covers import covers_pdf
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Print answer-sheet covers for human contestants: one page per contestant and problem, "
        "with a QR code naming the contest, the problem and the contestant's code, to lie on "
        "top of that answer when the pile is scanned (see import_scans). CODES is a text file "
        "with one contestant code per line; codes only, never names."
    )

    def add_arguments(self, parser):
        parser.add_argument("contest", metavar="SLUG", help="The contest's slug.")
        parser.add_argument("--codes", required=True, type=Path, metavar="CODES")
        parser.add_argument("--out", required=True, type=Path, metavar="PDF")

    def handle(self, *args, contest, codes, out, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        try:
            lines = codes.read_text(encoding="utf-8-sig").splitlines()
        except FileNotFoundError:
            raise CommandError(f"There is no file {codes}.") from None
        except UnicodeDecodeError:
            raise CommandError(f"{codes.name} is not UTF-8 text.") from None
        wanted = [line.strip() for line in lines if line.strip()]
        try:
            data = covers_pdf(contest=contest_obj, codes=wanted)
        except ValidationError as error:
            raise refuse(error) from None
        out.write_bytes(data)
        if verbosity >= 1:
            count = len(wanted) * contest_obj.problems.count()
            self.stdout.write(self.style.SUCCESS(f"Wrote {count} covers to {out}."))
