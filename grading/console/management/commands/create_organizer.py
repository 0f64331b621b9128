from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.console import people


class Command(BaseCommand):
    help = (
        "Create an organizer's account (the first one of a new site) with no password, and "
        "print its one-time sign-in link: opened once, it sets the password and signs in."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument("--name", default="", help="Full name, e.g. “Olga Petrova”.")
        parser.add_argument(
            "--base-url",
            required=True,
            metavar="URL",
            help="The site's address as people reach it, e.g. https://jury.example.org",
        )

    def handle(self, *args, username, email, name, base_url, verbosity, **options):
        base = base_url.strip().rstrip("/")
        if not base.startswith(("https://", "http://")):
            raise CommandError(f"--base-url “{base_url}” must start with https:// or http://.")
        try:
            person = people.organizer_create(username=username.strip(), email=email, name=name)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        link = base + people.sign_in_path(person)
        expires = people.link_expiry().strftime("%Y-%m-%d %H:%M %Z")
        if verbosity >= 1:
            self.stdout.write(
                f"Organizer {person.username} created. Their one-time sign-in link (it works "
                f"once, until {expires}):"
            )
        # The link alone on its own line, also at verbosity 0, for a script to pick up.
        self.stdout.write(link)
