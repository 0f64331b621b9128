"""What the backup tests share: jurors who grade problem 1 alike on every paper, an empty
database for a backup to be restored into, an archive rewritten as a tamperer would, and a
damaged document restored or refused as every backup fuzz test asks."""

import contextlib
import hashlib
import json
import zipfile
from decimal import Decimal
from pathlib import Path

from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from hypothesis import event
from hypothesis import strategies as st

from grading.backup.restore import contest_import
from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import Mark, MarkEvent, Paper, Resolution, Sheet
from rubrics.models import Contest
from tests.fuzz import assert_sentences, json_dumps, mutate_anywhere, rolled_back, row_counts


def problem_1_graded(contest: Contest, a1_points: dict) -> None:
    """Each juror in `a1_points` gives every paper their A1 points and 6 for T1 in problem 1,
    then submits the sheet."""
    for person, a1 in a1_points.items():
        for paper in contest.papers.all():
            for code, points in (("A1", a1), ("T1", "6")):
                mark_set(
                    mark=Mark.objects.get(
                        sheet__juror=person,
                        sheet__problem__number=1,
                        paper=paper,
                        criterion__code=code,
                    ),
                    points=Decimal(points),
                    actor=person,
                    channel=MarkEvent.Channel.BROWSER,
                )
        sheet_submit(sheet=Sheet.objects.get(juror=person, problem__number=1), actor=person)


def forget_everything() -> None:
    """An empty database as far as a contest is concerned: no contest, users or groups."""
    # Mark.criterion and Resolution.criterion are PROTECT, so a contest with marks cannot be
    # deleted in one cascade; they go first.
    Mark.objects.all().delete()
    Resolution.objects.all().delete()
    # Paper.delegation is PROTECT too: a delegation goes only once its papers are in none.
    Paper.objects.update(delegation=None)
    Contest.objects.all().delete()
    User.objects.all().delete()
    Group.objects.all().delete()


def rewritten_document(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("backup.json"))


def rewrite_archive(
    path: Path, *, document: dict | None = None, members: dict[str, bytes] | None = None
) -> None:
    """Rewrite the archive at `path`: its document replaced by `document`, and the members in
    `members` replaced or added (a page's SHA-256 in the document follows its new bytes unless
    the document is given)."""
    with zipfile.ZipFile(path) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    old = json.loads(contents.pop("backup.json"))
    for name, data in (members or {}).items():
        contents[name] = data
        for row in old["scan_pages"]:
            if row["image"] == name:
                row["sha256"] = hashlib.sha256(data).hexdigest()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
        archive.writestr("backup.json", json.dumps(document or old))


def damaged_in(data, document: dict, lists: list) -> dict:
    """`document` after one to three mutations (tests/fuzz.py), each in one of its `lists` (a
    key of the document) or anywhere (None among them), as json.loads would give it back."""
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        key = data.draw(st.sampled_from(lists), label="where")
        if key is None or not isinstance(document, dict) or key not in document:
            document = mutate_anywhere(data, document)
        else:
            document[key] = mutate_anywhere(data, document[key])
    return as_loaded(document)


def as_loaded(document):
    """A mutated document as json.loads would give it back: placeholders written out, NaN and
    Infinity as floats; when nested too deep or with a number too long for json.loads, the
    placeholder text stays."""
    with contextlib.suppress(ValueError, RecursionError):
        return json.loads(json_dumps(document))
    return document


def restored_or_refused(document) -> None:
    """A damaged backup is restored, or refused with sentences and nothing written (in a
    transaction rolled back either way)."""
    with rolled_back():
        before = row_counts()
        try:
            contest_import(document=document, source="backup.json")
        except ValidationError as error:
            event("refused")
            assert_sentences(error.messages)
            assert row_counts() == before
        else:
            event("restored")
