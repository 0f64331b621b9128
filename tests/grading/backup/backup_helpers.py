"""What the backup tests share: jurors who grade problem 1 alike on every paper, an empty
database for a backup to be restored into, and an archive rewritten as a tamperer would."""

import hashlib
import json
import zipfile
from decimal import Decimal
from pathlib import Path

from django.contrib.auth.models import Group, User

from grading.marking.marks import mark_set
from grading.marking.sheets import sheet_submit
from grading.models import Mark, MarkEvent, Paper, Resolution, Sheet
from rubrics.models import Contest


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
