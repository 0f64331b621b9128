from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand

from grading.console.juror_facts import juror_facts_set
from grading.console.management.commands._lines import read_lines_file, refuse


class Command(BaseCommand):
    help = (
        "Set jurors' countries, capacities and reading languages from a file of "
        "“username, country, capacity, languages” lines (languages separated by semicolons, "
        "“Finnish (with help)” for one read with help; an empty capacity is no limit). Each "
        "line replaces that juror's facts. All-or-nothing: every problem is listed, naming its "
        "line and column, and nothing is written. The console's jurors' facts page calls the "
        "same service."
    )

    def add_arguments(self, parser):
        parser.add_argument("--file", required=True, help="The lines, a UTF-8 CSV file.")
        parser.add_argument("--dry-run", action="store_true", help="Check the file, write nothing.")

    def handle(self, *args, file, dry_run, verbosity, **options):
        text = read_lines_file(file)
        try:
            batch = juror_facts_set(text=text, actor=None, dry_run=dry_run)
        except ValidationError as error:
            raise refuse(error) from None
        if verbosity >= 2:
            for line in batch.lines:
                facts = line.facts
                self.stdout.write(
                    f"{line.user.username}: {facts.country or 'no country'}; "
                    f"{facts.capacity_text}; {facts.languages_text or 'no language'}"
                    f"{'' if line.changes else ' (unchanged)'}"
                )
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(batch.line(dry_run=dry_run)))
