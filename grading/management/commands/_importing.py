"""What the import commands share: a progress bar on a terminal, and refusing with every
sentence of an ImportProblems."""

import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm


def progress_for(command: BaseCommand, verbosity: int):
    """A tqdm bar (on stderr, so that stdout stays clean for the summary) when a person is
    watching; None otherwise, when the summary line's counts say what happened."""
    if verbosity < 1 or not command.stdout.isatty():
        return None

    def bar(items, total, description):
        return tqdm(items, total=total, desc=description, leave=False, file=sys.stderr)

    return bar


def refuse(error: ValidationError) -> CommandError:
    sentences = "\n".join(f"  - {sentence}" for sentence in error.messages)
    return CommandError(f"Nothing was imported; fix these first:\n{sentences}")
