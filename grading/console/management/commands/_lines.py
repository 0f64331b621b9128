"""What the console's bulk-line commands share: reading the UTF-8 file, and refusing with every
sentence of the service's ValidationError."""

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from grading.rules.refusals import Refusal


def read_lines_file(file: str) -> str:
    path = Path(file)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CommandError(f"There is no file {file}.") from None
    except UnicodeDecodeError:
        raise CommandError(f"{path.name} is not UTF-8 text; save it as UTF-8 CSV.") from None


def refuse(error: ValidationError) -> CommandError:
    if isinstance(error, Refusal):
        # A refusal (a final contest) is one sentence saying what stands in the way.
        return CommandError(" ".join(error.messages))
    sentences = "\n".join(f"  - {sentence}" for sentence in error.messages)
    return CommandError(f"Nothing was set; fix these first:\n{sentences}")
