"""The comment bank in the admin: the organizer reads and curates the criteria's notes (a juror's
proposal, not yet `adopted`, is read on no juror's sheet but its author's), checked
as the curation page checks them (`grading.marking.comment_bank.bank_note_checked`); a use is
counted only when a juror inserts a note, so the count is read-only here. Read-only in a final
contest, as everything it owns (`mixins.FinalGuard`)."""

from django.contrib import admin
from django.core.exceptions import ValidationError

from grading.admin.mixins import GuardedAdmin, OpenContestForm
from grading.marking.comment_bank import bank_note_checked
from grading.models import BankNote


class BankNoteForm(OpenContestForm):
    def clean(self):
        cleaned = super().clean()
        criterion = cleaned.get("criterion")
        if criterion is not None and "text" in cleaned and "points" in cleaned:
            try:
                cleaned["text"] = bank_note_checked(
                    criterion=criterion,
                    text=cleaned["text"],
                    points=cleaned["points"],
                    other_than=self.instance.pk,
                    adopted=cleaned.get("adopted", True),
                    author=cleaned.get("author"),
                )
            except ValidationError as error:
                raise ValidationError(error.messages) from None
        return cleaned


@admin.register(BankNote)
class BankNoteAdmin(GuardedAdmin):
    form = BankNoteForm
    list_display = ["criterion", "text", "points", "adopted", "uses", "order", "author"]
    list_filter = ["adopted", "criterion__problem__contest", "criterion__problem"]
    list_select_related = ["criterion__problem", "author"]
    search_fields = ["text"]
    readonly_fields = ["uses", "created_at"]
    raw_id_fields = ["author"]
