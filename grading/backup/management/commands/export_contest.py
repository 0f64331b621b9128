from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.backup.archive import backup_write
from rubrics.models import Contest


class Command(BaseCommand):
    help = (
        "Back a contest up into one file, a zip archive (name it .zip) of a JSON document and "
        "the scanned pages' images, written page by page: scheme, "
        "tasks, cut-offs, papers with identities, labels and solutions, jurors and groups, "
        "assignments, sheets, marks with their history, discussions, resolutions and human "
        "scores. Users are kept by username, names and groups; passwords are never exported. "
        "The file holds the papers' identities: store it as the organizers' secret it is."
    )

    def add_arguments(self, parser):
        parser.add_argument("--contest", required=True, help="Slug of the contest.")
        parser.add_argument("--out", required=True, help="The file to write (.zip).")

    def handle(self, *args, contest, out, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        path = Path(out)
        if not path.parent.is_dir():
            raise CommandError(f"The folder {path.parent} does not exist.")
        try:
            document = backup_write(contest=contest_obj, path=path)
        except ValidationError as error:
            # A page image gone from SCANS_DIR, or a backup past a bound that restoring applies.
            raise CommandError(" ".join(error.messages)) from None
        if verbosity >= 1:
            events = sum(len(mark["events"]) for mark in document["marks"])
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {contest_obj.name} to {path}: {len(document['papers'])} papers, "
                    f"{len(document['marks'])} marks, {events} mark events, "
                    f"{len(document['users'])} users."
                )
            )
