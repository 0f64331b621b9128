from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from grading.results.cutoffs import MEDAL_BY_KEY, MEDALS, cutoffs_sentence, cutoffs_set
from rubrics.models import Contest
from rubrics.validators import parse_points

KEYS = ", ".join(medal.key for medal in MEDALS)


class Command(BaseCommand):
    help = (
        "Set a contest's medal cut-offs, the lowest total that earns each medal: "
        "set_cutoffs demo gold=70 silver=58.4 hm=35.3. Medals not named keep their cut-off; "
        f"MEDAL=none removes one. The medals: {KEYS} (honourable mention). Refused, changing "
        "nothing, once the contest is final."
    )

    def add_arguments(self, parser):
        parser.add_argument("contest", metavar="SLUG", help="The contest's short name.")
        parser.add_argument(
            "cutoffs", nargs="+", metavar="MEDAL=TOTAL", help=f"{KEYS}; TOTAL a number or none."
        )

    def handle(self, *args, contest, cutoffs, verbosity, **options):
        try:
            contest_obj = Contest.objects.get(slug=contest)
        except Contest.DoesNotExist:
            raise CommandError(f"There is no contest “{contest}”.") from None
        values, errors = {}, []
        for argument in cutoffs:
            key, equals, raw = argument.partition("=")
            key = key.strip().lower()
            if not equals:
                errors.append(f"“{argument}” is not MEDAL=TOTAL, e.g. gold=70.")
            elif key not in MEDAL_BY_KEY:
                errors.append(f"“{key}” is not a medal; the medals are {KEYS}.")
            elif key in values:
                errors.append(f"The {MEDAL_BY_KEY[key].name} cut-off is given twice.")
            elif raw.strip().lower() in ("none", ""):
                values[key] = None
            else:
                try:
                    values[key] = parse_points(raw, where=f"The {MEDAL_BY_KEY[key].name} cut-off")
                except ValidationError as error:
                    errors += error.messages
        if errors:
            raise CommandError(" ".join(errors))
        try:
            contest_obj = cutoffs_set(contest=contest_obj, cutoffs=values, actor=None)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(f"{contest_obj.name}: {cutoffs_sentence(contest_obj)}.")
            )
