"""What the sheet's pages say: a refused note save, a
note-only change in the history, points written as people write them, the upload preview of a
file with errors, and the juror's home once the contest is final."""

import io
import re
from decimal import Decimal
from html import unescape

import openpyxl
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.marking.marks import mark_set
from grading.models import Mark, PaperLabel
from tests.grading import scenario


def _text(html: str) -> str:
    """The words of an HTML fragment, as read: tags out, entities and spaces as one reads them."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _label(contest, index: int = 0) -> str:
    return sorted(
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1).values_list(
            "label", flat=True
        )
    )[index]


def _mark(juror, label: str, code: str) -> Mark:
    return Mark.objects.select_related("criterion").get(
        sheet__juror=juror,
        sheet__problem__number=1,
        criterion__code=code,
        paper__labels__label=label,
    )


def _url(contest, label: str, code: str, name: str) -> str:
    return reverse(name, args=[contest.slug, 1, label, code])


def test_a_stale_note_save_after_a_note_only_change_does_not_say_the_points_changed(
    client, contest, juror
):
    label = _label(contest)
    mark = _mark(juror, label, "A1")
    mark_set(mark=mark, points=Decimal("6"), actor=juror, channel="browser")
    mark_set(mark=mark, points=Decimal("6"), note="first note", actor=juror, channel="browser")
    client.force_login(juror)
    # A tab that loaded the cell at version 1, before the note was written in another.
    response = client.post(
        _url(contest, label, "A1", "sheet_note_save"), {"note": "second note", "version": 1}
    )
    assert response.status_code == 409
    message = response.json()["error"]
    assert re.fullmatch(
        r"The note on this mark was changed at \d{4}-\d\d-\d\d \d\d:\d\d since you loaded it "
        r"\(its points are still 6\); reload to see the current note before changing it\.",
        message,
    ), message
    assert _mark(juror, label, "A1").note == "first note"


def test_a_stale_save_after_a_change_of_points_still_names_the_new_points(client, contest, juror):
    label = _label(contest)
    mark_set(mark=_mark(juror, label, "A1"), points=Decimal("6"), actor=juror, channel="browser")
    client.force_login(juror)
    response = client.post(
        _url(contest, label, "A1", "sheet_note_save"), {"note": "a note", "version": 0}
    )
    assert response.status_code == 409
    assert response.json()["error"].startswith("This mark was changed to 6 at ")


def test_the_history_tells_a_note_only_change_as_a_note_change(client, contest, juror):
    label = _label(contest)
    mark = _mark(juror, label, "T1")
    mark_set(mark=mark, points=Decimal("3"), actor=juror, channel="browser")
    mark_set(mark=mark, points=Decimal("3"), note="partial rule", actor=juror, channel="browser")
    client.force_login(juror)
    response = client.get(_url(contest, label, "T1", "sheet_cell_history"), {"partial": "1"})
    cells = re.findall(
        r'<td class="points">(.*?)</td>\s*<td class="note">(.*?)</td>', response.content.decode()
    )
    assert [(_text(p), _text(n)) for p, n in cells] == [
        ("unchanged (3)", "(none) → partial rule"),
        ("blank → 3", "unchanged"),
    ]
    assert "3 → 3" not in response.content.decode()


def test_points_in_a_refusal_are_written_plainly_never_in_exponent_notation(client, contest, juror):
    client.force_login(juror)
    response = client.post(
        _url(contest, _label(contest), "T1", "sheet_cell_save"), {"points": "1e1", "version": 0}
    )
    assert response.status_code == 422
    assert response.json()["error"] == (
        "Criterion T1: 10 is more than the 8 points this criterion allows."
    )


def _upload_preview(client, contest, book) -> str:
    buffer = io.BytesIO()
    book.save(buffer)
    response = client.post(
        reverse("sheet_xlsx_upload", args=[contest.slug, 1]),
        {"file": SimpleUploadedFile("sheet.xlsx", buffer.getvalue())},
        follow=True,
    )
    assert response.status_code == 200
    return response


def _download(client, contest):
    response = client.get(reverse("sheet_xlsx", args=[contest.slug, 1]))
    return openpyxl.load_workbook(io.BytesIO(response.content))


def _summary(response) -> str:
    match = re.search(r'<p id="upload-summary">(.*?)</p>', response.content.decode(), re.S)
    return _text(match.group(1))


def test_the_preview_of_a_file_with_errors_and_good_changes_says_both(client, contest, juror):
    client.force_login(juror)
    book = _download(client, contest)
    marks = book["Marks"]
    marks["B3"] = 13  # over A1's 12 points
    marks["B4"] = 2
    marks["C5"] = 1.5
    response = _upload_preview(client, contest, book)
    assert _summary(response) == (
        "Once the errors are fixed, the file would make these 2 changes; nothing is written "
        "while it has errors."
    )
    html = response.content.decode()
    assert "The file changes no mark" not in html
    assert len(response.context["changes"]) == 2
    assert 'id="confirm-upload"' not in html


def test_the_preview_of_a_file_with_errors_only_says_nothing_else_changes(client, contest, juror):
    client.force_login(juror)
    book = _download(client, contest)
    book["Marks"]["B3"] = 13
    assert _summary(_upload_preview(client, contest, book)) == (
        "Apart from its errors, the file changes no mark; nothing is written while it has errors."
    )


def test_the_preview_of_an_unchanged_file_says_it_changes_no_mark(client, contest, juror):
    client.force_login(juror)
    response = _upload_preview(client, contest, _download(client, contest))
    assert _summary(response) == "The file changes no mark."


def test_a_jurors_home_after_final_says_only_what_the_juror_can_open(client, db):
    graded = scenario.build()
    scenario.finalize(graded)
    alice = graded["users"]["alice"]
    client.force_login(alice)
    response = client.get(reverse("home"))
    html = response.content.decode()
    assert "results are out" not in html
    final = re.search(r'<p class="final">(.*?)</p>', html, re.S)
    assert _text(final.group(1)) == (
        "This contest is final: every mark is read-only. The comparison shows your problem's "
        "final marks."
    )
    assert client.get(reverse("results", args=["iol"])).status_code == 404
    links = re.findall(r"<main.*?</main>", html, re.S)[0]
    for href in re.findall(r'href="(/[^"]*)"', links):
        assert client.get(href).status_code == 200, href
