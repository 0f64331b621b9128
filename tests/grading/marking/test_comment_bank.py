"""The comment bank without a browser: who may add, use and curate, the sentences of bad input
and duplicates, a final contest refused, uses counted, inserted notes that stay the juror's own
when the bank changes, the pages' doors and query counts, and independence (the bank shows no
juror's mark)."""

import re
from decimal import Decimal
from html import unescape

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.marking.comment_bank import (
    bank_note_add,
    bank_note_adopt,
    bank_note_edit,
    bank_note_move,
    bank_note_remove,
    bank_note_used,
)
from grading.marking.marks import mark_set
from grading.models import BankNote, Mark
from grading.rules.refusals import ContestFinal, NotAllowed
from rubrics.models import Contest, Criterion
from tests import factories


def _criterion(contest, code: str = "T1", number: int = 1) -> Criterion:
    return Criterion.objects.select_related("problem__contest").get(
        problem__contest=contest, problem__number=number, code=code
    )


def _add(contest, author, text="Vowel harmony rule missed.", points="2", code="T1"):
    return bank_note_add(
        criterion=_criterion(contest, code),
        text=text,
        points=None if points is None else Decimal(points),
        author=author,
    )


def _finalize(contest) -> None:
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)


def _texts() -> list[tuple[str, str, int]]:
    notes = BankNote.objects.order_by("criterion__order", "criterion__code", "order", "id")
    return list(notes.values_list("text", "points", "uses"))


# ---- services: access, validation, duplicates, final ----------------------------------------


def test_a_juror_of_the_group_and_the_chair_add_notes_in_order(contest, juror, chair):
    first = _add(contest, juror, "  Vowel harmony rule missed.  ", "2")
    second = _add(contest, chair, "Plural marker not found.", None)

    assert (first.text, first.points, first.author, first.order) == (
        "Vowel harmony rule missed.",
        Decimal("2"),
        juror,
        0,
    )
    assert (second.points, second.author, second.order) == (None, chair, 1)


def test_a_juror_of_another_group_cannot_add_to_the_bank(contest, outside_juror):
    with pytest.raises(NotAllowed) as refused:
        _add(contest, outside_juror)
    assert refused.value.messages == [
        "Only the jurors of P1 and the chair add notes to its comment bank."
    ]
    assert BankNote.objects.count() == 0


@pytest.mark.parametrize(
    ("text", "points", "sentence"),
    [
        ("   ", "1", "Criterion T1: write the note's text; an empty note cannot go in the bank."),
        (
            "x" * 501,
            "1",
            "Criterion T1: the note is 501 characters long; shorten it to 500 at most.",
        ),
        (
            "Too many points.",
            "9",
            "The suggested points, criterion T1: 9 is more than the 8 points this criterion "
            "allows.",
        ),
        (
            "Off the step.",
            "0.3",
            "The suggested points, criterion T1: 0.3 is not a multiple of the step 0.5.",
        ),
        (
            "Negative.",
            "-1",
            "The suggested points, criterion T1: -1 is negative; points go from 0 to 8.",
        ),
    ],
)
def test_bad_input_is_refused_with_a_sentence_and_nothing_written(
    contest, juror, text, points, sentence
):
    with pytest.raises(ValidationError) as refused:
        _add(contest, juror, text, points)
    assert refused.value.messages == [sentence]
    assert BankNote.objects.count() == 0


def test_the_same_text_twice_in_a_criterion_is_refused_whatever_its_capitals(contest, juror):
    _add(contest, juror, "Vowel harmony rule missed.")
    with pytest.raises(ValidationError) as refused:
        _add(contest, juror, "VOWEL harmony rule missed.", "1")
    assert refused.value.messages == [
        "Criterion T1's bank already holds the note “VOWEL harmony rule missed.”; insert that "
        "one instead of adding it again."
    ]
    # Another criterion's bank may hold the same text.
    _add(contest, juror, "Vowel harmony rule missed.", "1", code="A1")
    assert BankNote.objects.count() == 2


def test_only_the_chair_and_the_organizer_curate(contest, juror, chair, organizer):
    note = _add(contest, juror)
    for refused_call in (
        lambda: bank_note_edit(note=note, text="Changed.", points=None, actor=juror),
        lambda: bank_note_remove(note=note, actor=juror),
        lambda: bank_note_move(note=note, up=False, actor=juror),
    ):
        with pytest.raises(NotAllowed) as refused:
            refused_call()
        assert refused.value.messages == ["Only the chair edits, removes and reorders bank notes."]
    bank_note_edit(note=note, text="Changed by the chair.", points=Decimal("1.5"), actor=chair)
    bank_note_edit(note=note, text="Changed by the organizer.", points=None, actor=organizer)
    assert _texts() == [("Changed by the organizer.", None, 0)]
    bank_note_remove(note=note, actor=chair)
    assert _texts() == []


def test_an_edit_is_checked_as_an_addition(contest, juror, chair):
    _add(contest, juror, "First.")
    second = _add(contest, juror, "Second.")
    with pytest.raises(ValidationError) as refused:
        bank_note_edit(note=second, text="first.", points=None, actor=chair)
    assert refused.value.messages == [
        "Criterion T1's bank already holds the note “first.”; insert that one instead of "
        "adding it again."
    ]
    # Its own text again is no duplicate.
    bank_note_edit(note=second, text="Second.", points=Decimal("8"), actor=chair)
    assert _texts() == [("First.", Decimal("2"), 0), ("Second.", Decimal("8"), 0)]


def test_moving_a_note_swaps_it_with_its_neighbour_and_stops_at_the_ends(contest, juror, chair):
    a, b, c = (_add(contest, juror, text) for text in ("A.", "B.", "C."))
    # Orders left equal by earlier writes do not stall a move.
    BankNote.objects.update(order=0)
    bank_note_move(note=c, up=True, actor=chair)
    assert [t for t, _, _ in _texts()] == ["A.", "C.", "B."]
    bank_note_move(note=a, up=True, actor=chair)
    bank_note_move(note=b, up=False, actor=chair)
    assert [t for t, _, _ in _texts()] == ["A.", "C.", "B."]
    bank_note_move(note=a, up=False, actor=chair)
    assert [t for t, _, _ in _texts()] == ["C.", "A.", "B."]


def test_a_final_contest_refuses_every_write_on_its_bank(contest, juror, chair):
    note = _add(contest, juror)
    _finalize(contest)
    note = BankNote.objects.select_related("criterion__problem__contest").get(pk=note.pk)
    for write in (
        lambda: _add(contest, juror, "Another."),
        lambda: bank_note_edit(note=note, text="Changed.", points=None, actor=chair),
        lambda: bank_note_remove(note=note, actor=chair),
        lambda: bank_note_move(note=note, up=True, actor=chair),
        lambda: bank_note_used(note=note, actor=juror),
    ):
        with pytest.raises(ContestFinal) as refused:
            write()
        assert refused.value.messages == [
            f"{contest.name} is final: its comment bank are read-only. An organizer can "
            "reopen it, with a reason, from its results page."
        ]
    assert _texts() == [("Vowel harmony rule missed.", Decimal("2"), 0)]


def test_a_use_is_counted_in_the_database_for_each_juror_who_inserts(
    contest, juror, other_juror, outside_juror, chair
):
    note = bank_note_adopt(note=_add(contest, juror), actor=chair)
    stale = BankNote.objects.select_related("criterion__problem__contest").get(pk=note.pk)
    assert bank_note_used(note=note, actor=juror) == 1
    # A writer holding an old count still adds one to the count stored.
    assert bank_note_used(note=stale, actor=other_juror) == 2
    with pytest.raises(NotAllowed):
        bank_note_used(note=note, actor=outside_juror)
    assert BankNote.objects.get().uses == 2


def test_an_inserted_note_stays_the_jurors_own_when_the_bank_note_is_edited_or_removed(
    client, contest, juror, chair
):
    note = _add(contest, juror)
    client.force_login(juror)
    client.get(reverse("sheet", args=[contest.slug, 1]))
    mark = Mark.objects.filter(sheet__juror=juror, criterion__code="T1").first()
    label = mark.paper.labels.get(problem__number=1).label
    saved = client.post(
        reverse("sheet_note_save", args=[contest.slug, 1, label, "T1"]),
        {"note": note.text, "version": mark.version},
    )
    assert saved.json()["saved"] is True

    bank_note_edit(note=note, text="Reworded by the chair.", points=None, actor=chair)
    mark.refresh_from_db()
    assert mark.note == "Vowel harmony rule missed."
    bank_note_remove(note=note, actor=chair)
    mark.refresh_from_db()
    assert mark.note == "Vowel harmony rule missed."


# ---- the sheet's doors -------------------------------------------------------------------------


def _sheet(client, user, contest):
    client.force_login(user)
    return client.get(reverse("sheet", args=[contest.slug, 1]))


def test_the_sheet_adds_a_note_to_the_bank_and_answers_json(client, contest, juror):
    _sheet(client, juror, contest)
    response = client.post(
        reverse("sheet_bank_add", args=[contest.slug, 1, "T1"]),
        {"text": "Suffix order wrong.", "points": "1,5"},
    )
    note = BankNote.objects.get()
    assert response.json() == {
        "id": note.pk,
        "text": "Suffix order wrong.",
        "points": "1.5",
        "uses": 0,
        "saved": True,
        "proposal": True,
    }
    again = client.post(
        reverse("sheet_bank_add", args=[contest.slug, 1, "T1"]),
        {"text": "suffix order wrong.", "points": ""},
    )
    assert again.status_code == 422
    assert again.json()["error"] == (
        "Criterion T1's bank already holds the note “suffix order wrong.”; insert that one "
        "instead of adding it again."
    )
    bad = client.post(
        reverse("sheet_bank_add", args=[contest.slug, 1, "T1"]),
        {"text": "Other.", "points": "two"},
    )
    assert (bad.status_code, bad.json()["error"]) == (
        422,
        "The suggested points: “two” is not a number of points.",
    )
    assert BankNote.objects.count() == 1


@pytest.mark.parametrize(
    ("who", "status"), [(None, 302), ("outside_juror", 404), ("organizer", 404), ("juror", 200)]
)
def test_the_sheet_counts_a_use_for_a_juror_of_the_group_only(
    client, contest, juror, request, who, status
):
    note = _add(contest, juror)
    if who:
        client.force_login(request.getfixturevalue(who))
    response = client.post(reverse("sheet_bank_use", args=[contest.slug, 1, note.pk]))
    assert response.status_code == status
    assert BankNote.objects.get().uses == (1 if status == 200 else 0)
    # A note of another problem is not found through this one.
    client.force_login(juror)
    assert client.post(reverse("sheet_bank_use", args=[contest.slug, 2, note.pk])).status_code == (
        404
    )


def _bank_panel(response) -> str:
    html = response.content.decode()
    found = re.search(r'<section class="bank-panel".*?</section>', html, re.S)
    return found.group(0) if found else ""


def _options(panel: str) -> list[str]:
    return [
        " ".join(unescape(re.sub(r"<[^>]+>", " ", option)).split())
        for option in re.findall(r'<li role="option".*?</li>', panel, re.S)
    ]


def test_the_sheets_bank_panel_lists_each_criterions_notes_numbered_with_points_and_uses(
    client, contest, juror, chair
):
    _add(contest, chair, "Vowel <harmony> missed.", "2")
    note = _add(contest, juror, "Only half the rule.", None)
    bank_note_used(note=note, actor=juror)
    _add(contest, juror, "Word order.", "0.5", code="A1")

    panel = _bank_panel(_sheet(client, juror, contest))
    # The chair's note is the group's; Alice's own proposals are hers, and say so.
    assert _options(panel) == [
        "1 Word order. · your proposal, not yet in the group's bank · 0.5 points · used 0 times",
        "1 Vowel <harmony> missed. · 2 points · used 0 times",
        "2 Only half the rule. · your proposal, not yet in the group's bank · no points "
        "suggested · used 1 time",
    ]
    # The author is never named to a juror.
    assert "chen" not in panel


BOB_NOTE = "BOB-SECRET-NOTE"


def test_the_bank_shows_no_mark_of_any_juror(client, contest, juror, other_juror, chair):
    """Bob grades every cell with a note of his own and inserts a bank note in one; neither
    the bank panel of Alice's sheet nor the chair's bank page shows anything of his marks."""
    note = bank_note_adopt(
        note=_add(contest, juror, "Vowel harmony rule missed.", "2"), actor=chair
    )
    _sheet(client, other_juror, contest)
    for mark in Mark.objects.filter(sheet__juror=other_juror).select_related("criterion"):
        mark_set(
            mark=mark,
            points=Decimal("7.5"),
            note=f"{BOB_NOTE} {note.text}",
            actor=other_juror,
            channel="browser",
        )
    bank_note_used(note=note, actor=other_juror)

    panel = _bank_panel(_sheet(client, juror, contest))
    assert _options(panel) == ["1 Vowel harmony rule missed. · 2 points · used 1 time"]
    client.force_login(chair)
    page = client.get(reverse("bank", args=[contest.slug, 1])).content.decode()
    assert (BOB_NOTE in page, "7.5" in page, BOB_NOTE in panel, "7.5" in panel) == (
        False,
        False,
        False,
        False,
    )


def test_a_locked_sheet_has_no_bank_panel(client, contest, juror):
    _add(contest, juror)
    _finalize(contest)
    assert _bank_panel(_sheet(client, juror, contest)) == ""


# ---- the chair's curation page ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status"),
    [(None, 302), ("juror", 404), ("outside_juror", 404), ("chair", 200), ("organizer", 200)],
)
def test_the_bank_page_is_the_chairs_and_the_organizers(client, contest, request, who, status):
    if who:
        client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("bank", args=[contest.slug, 1])).status_code == status


def test_the_bank_page_names_authors_and_uses_and_its_forms_curate(client, contest, juror, chair):
    first = _add(contest, juror, "First.", "2")
    second = _add(contest, juror, "Second.", None)
    client.force_login(chair)
    url = reverse("bank", args=[contest.slug, 1])
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    # Alice's two notes are proposals, apart from the bank, until the chair adopts them.
    assert (html.count("proposed by alice"), 'href="/contests/test/p1/bank/"' in html) == (2, True)
    for note in (first, second):
        client.post(reverse("bank_adopt", args=[contest.slug, 1, note.pk]))
    html = client.get(url).content.decode()
    assert (html.count(">alice<"), "proposed by alice" in html) == (2, False)

    client.post(reverse("bank_move", args=[contest.slug, 1, second.pk]), {"direction": "up"})
    client.post(
        reverse("bank_edit", args=[contest.slug, 1, first.pk]), {"text": "First!", "points": "8"}
    )
    client.post(reverse("bank_add", args=[contest.slug, 1]), {"criterion": "A1", "text": "New."})
    assert [(t, p) for t, p, _ in _texts()] == [
        ("New.", None),
        ("Second.", None),
        ("First!", Decimal("8")),
    ]
    refused = client.post(
        reverse("bank_edit", args=[contest.slug, 1, first.pk]),
        {"text": "First!", "points": "20"},
        follow=True,
    )
    # After the messages of the posts before, not followed.
    assert [str(m) for m in refused.context["messages"]][-1:] == [
        "The suggested points, criterion T1: 20 is more than the 8 points this criterion allows."
    ]
    client.post(reverse("bank_remove", args=[contest.slug, 1, first.pk]))
    assert [t for t, _, _ in _texts()] == ["New.", "Second."]


def test_a_juror_cannot_post_to_the_curation_forms(client, contest, juror):
    note = _add(contest, juror)
    client.force_login(juror)
    for name, data in (
        ("bank_edit", {"text": "Mine now.", "points": ""}),
        ("bank_remove", {}),
        ("bank_move", {"direction": "down"}),
        ("bank_adopt", {}),
    ):
        response = client.post(reverse(name, args=[contest.slug, 1, note.pk]), data)
        assert response.status_code == 404
    assert _texts() == [("Vowel harmony rule missed.", Decimal("2"), 0)]
    assert BankNote.objects.get().adopted is False


# ---- independence: a juror's proposal is no channel to a co-grader ---------------------------

REMARK = "Tense wrong in (b): DEQW-specific remark"


def test_a_jurors_note_reaches_no_co_grader_before_the_chair_adopts_it(
    client, contest, juror, other_juror, chair
):
    """Finding 1: Alice adds a note written on one paper's mark of 3; Bob, grading the same
    problem in draft, neither reads it on his sheet nor may insert it, at any door, until the
    chair adopts it into the group's bank."""
    _sheet(client, juror, contest)
    added = client.post(
        reverse("sheet_bank_add", args=[contest.slug, 1, "T1"]), {"text": REMARK, "points": "3"}
    )
    assert added.json()["proposal"] is True
    note = BankNote.objects.get()
    assert REMARK in _bank_panel(_sheet(client, juror, contest))

    bobs_sheet = _sheet(client, other_juror, contest).content.decode()
    assert (REMARK in bobs_sheet, "DEQW" in bobs_sheet) == (False, False)
    used = client.post(reverse("sheet_bank_use", args=[contest.slug, 1, note.pk]))
    assert used.status_code == 404
    with pytest.raises(NotAllowed):
        bank_note_used(note=note, actor=other_juror)
    assert BankNote.objects.get().uses == 0

    client.force_login(chair)
    page = client.get(reverse("bank", args=[contest.slug, 1])).content.decode()
    assert f"“{REMARK}” · 3 points · proposed by alice" in unescape(page)
    client.post(reverse("bank_adopt", args=[contest.slug, 1, note.pk]))

    assert _options(_bank_panel(_sheet(client, other_juror, contest))) == [
        f"1 {REMARK} · 3 points · used 0 times"
    ]
    assert client.post(reverse("sheet_bank_use", args=[contest.slug, 1, note.pk])).json() == {
        "id": note.pk,
        "uses": 1,
        "saved": True,
    }


def test_two_jurors_may_propose_the_same_words_without_either_learning_of_the_other(
    contest, juror, other_juror, chair
):
    first = _add(contest, juror, REMARK)
    # Refused as a duplicate, Bob would learn Alice's words: his own proposal is his.
    second = _add(contest, other_juror, REMARK.lower())
    assert (first.adopted, second.adopted) == (False, False)
    with pytest.raises(ValidationError) as refused:
        _add(contest, juror, REMARK.upper())
    assert "already holds the note" in refused.value.messages[0]

    bank_note_adopt(note=first, actor=chair)
    with pytest.raises(ValidationError) as twice:
        bank_note_adopt(note=second, actor=chair)
    assert twice.value.messages == [
        f"Criterion T1's bank already holds the note “{REMARK.lower()}”; remove this proposal "
        "rather than adopt a second copy."
    ]
    # Now in the group's bank, Bob reads it: adding it again is refused as any duplicate.
    with pytest.raises(ValidationError):
        _add(contest, other_juror, REMARK + " ")
    assert BankNote.objects.filter(adopted=True).count() == 1


def test_the_chairs_own_note_goes_straight_into_the_bank(client, contest, chair, juror):
    note = _add(contest, chair, "Half the rule.", None)
    assert note.adopted is True
    assert "Half the rule." in _bank_panel(_sheet(client, juror, contest))


# ---- query counts ------------------------------------------------------------------------------


def _captured(client, url: str) -> list[str]:
    client.get(url)  # a first visit may create the sheet
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return [query["sql"] for query in queries.captured_queries]


def _queries(client, url: str) -> int:
    return len(_captured(client, url))


def _bank_of(contest, author, notes: int) -> None:
    for criterion in Criterion.objects.filter(problem__contest=contest):
        BankNote.objects.bulk_create(
            BankNote(criterion=criterion, text=f"Note {n}.", author=author, order=n)
            for n in range(notes)
        )


def test_the_sheet_reads_the_bank_in_one_query_whatever_its_size(client, db):
    juror = factories.make_user("dora", "juror")
    small = factories.make_contest("small", problems=1, papers=5)
    large = factories.make_contest("large", problems=1, papers=300)
    factories.assign(small, [juror])
    factories.assign(large, [juror])
    client.force_login(juror)
    empty = _queries(client, reverse("sheet", args=["small", 1]))
    _bank_of(small, juror, 1)
    _bank_of(large, juror, 60)
    small_sql = _captured(client, reverse("sheet", args=["small", 1]))
    large_sql = _captured(client, reverse("sheet", args=["large", 1]))
    assert (len(small_sql), len(large_sql)) == (empty, empty)
    table = BankNote._meta.db_table
    assert [sql for sql in large_sql if table in sql] == [
        sql for sql in large_sql if sql.startswith("SELECT") and f'FROM "{table}"' in sql
    ]
    assert len([sql for sql in large_sql if table in sql]) == 1


def test_the_bank_page_runs_the_same_number_of_queries_with_1_and_60_notes(client, db):
    chair = factories.make_user("chen", "chair")
    small = factories.make_contest("small", problems=1, papers=1)
    large = factories.make_contest("large", problems=1, papers=1)
    jurors = [factories.make_user(f"juror{n}", "juror") for n in range(3)]
    _bank_of(small, jurors[0], 1)
    for n, juror in enumerate(jurors):
        for criterion in Criterion.objects.filter(problem__contest=large):
            BankNote.objects.bulk_create(
                BankNote(criterion=criterion, text=f"{n}-{k}", author=juror) for k in range(20)
            )
    client.force_login(chair)
    assert _queries(client, reverse("bank", args=["small", 1])) == _queries(
        client, reverse("bank", args=["large", 1])
    )
