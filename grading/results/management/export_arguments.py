"""What the results' export commands (`export_results`, `export_jury_evaluations`,
`export_analysis`) share: the contest, the format, the file and whether it names the systems,
checked before anything is read, each refusal a sentence."""

from pathlib import Path

from django.core.management.base import CommandError

from rubrics.models import Contest


def add_export_arguments(parser, formats) -> None:
    parser.add_argument("--contest", required=True, help="Slug of the contest.")
    parser.add_argument("--format", required=True, choices=sorted(formats))
    parser.add_argument("--out", required=True, help="The file to write.")


def add_identities_argument(parser) -> None:
    parser.add_argument(
        "--identities", action="store_true", help="Add identity columns (final contests)."
    )


def export_target(*, contest: str, out: str, identities: bool) -> tuple[Contest, Path]:
    """The contest and the file to write, or the command's refusal: no such contest, the
    systems asked for before the contest is final (as the pages' `may_export_identities`), or
    a folder that is not there."""
    try:
        contest_obj = Contest.objects.get(slug=contest)
    except Contest.DoesNotExist:
        raise CommandError(f"There is no contest “{contest}”.") from None
    if identities and not contest_obj.is_final:
        raise CommandError(
            f"{contest_obj.name} is not final: identities stay hidden until the chair finalizes it."
        )
    path = Path(out)
    if not path.parent.is_dir():
        raise CommandError(f"The folder {path.parent} does not exist.")
    return contest_obj, path
