"""Writing a restored contest's comment banks (`grading.backup.writing`), once its criteria and
users are written, in the file's order, so that notes restored into an empty database draw back
the ids they had; their uses and creation times as exported."""

from django.contrib.auth.models import User

from grading.backup import table
from grading.backup.reader import Restored
from grading.models import BankNote


def write_bank(d: Restored, users: dict[str, User]) -> None:
    notes = [
        BankNote(
            criterion=d.criteria[(number, values["criterion"])],
            author=users.get(values["author"]),
            **table.BANK.own(values),
        )
        for number, values in d.bank
    ]
    BankNote.objects.bulk_create(notes)
    table.BANK.put_back_stamps(notes, [values for _, values in d.bank])
