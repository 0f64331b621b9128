"""import_contest reads a version 1 backup (one JSON document) within a bound: a small gzip
that unpacks to hundreds of MB, or a plain file larger than any backup, is refused with a
sentence naming BACKUP_JSON_MAX_MB before it fills memory; export_contest refuses to write a
backup past BACKUP_MAX_MB."""

import gzip
import re
import tracemalloc

import pytest
from django.core.management import CommandError, call_command

from grading.backup.archive import backup_read
from grading.backup.legacy import max_json_bytes as max_backup_bytes
from grading.models import ScanPage, Solution
from rubrics.models import Contest

MB = 1024 * 1024


def _gzip_bomb(path, unpacked: int) -> None:
    # Concatenated gzip members unpack to the concatenation: 4 MB of spaces packs to 4 KB.
    member = gzip.compress(b" " * (4 * MB), mtime=0)
    path.write_bytes(member * (unpacked // (4 * MB)))


def test_a_small_gzip_that_unpacks_past_the_bound_is_refused_while_unpacking(
    tmp_path, db, monkeypatch
):
    path = tmp_path / "contest.json.gz"
    _gzip_bomb(path, 2 * max_backup_bytes())
    assert path.stat().st_size < 8 * MB
    # Counted, not timed: the refusal comes once the bound is passed, not after unpacking all.
    unpacked = []
    read = gzip.GzipFile.read

    def counted_read(self, *args):
        data = read(self, *args)
        unpacked.append(len(data))
        return data

    monkeypatch.setattr(gzip.GzipFile, "read", counted_read)
    with pytest.raises(CommandError) as refusal:
        call_command("import_contest", str(path))
    assert max_backup_bytes() < sum(unpacked) <= max_backup_bytes() + 2 * MB
    assert str(refusal.value) == (
        "Nothing was imported:\n  - contest.json.gz unpacks to more than 200 MB of JSON "
        "(BACKUP_JSON_MAX_MB), more than any contest's backup; import the file export_contest "
        "wrote, or set BACKUP_JSON_MAX_MB higher."
    )
    assert Contest.objects.count() == 0


def test_unpacking_stops_at_the_bound_rather_than_holding_the_whole_content(tmp_path):
    path = tmp_path / "contest.json.gz"
    _gzip_bomb(path, 4 * max_backup_bytes())
    tracemalloc.start()
    try:
        with pytest.raises(Exception, match="unpacks to more than 200 MB"):
            backup_read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The bound plus one chunk and the bytearray's spare room; the whole would be 800 MB.
    assert peak < max_backup_bytes() * 1.3


def test_a_plain_file_larger_than_any_backup_is_refused_unread(tmp_path, db):
    path = tmp_path / "contest.json"
    with path.open("wb") as stream:
        stream.truncate(max_backup_bytes() + 1)  # sparse: nothing is written to the disk
    # Measured in memory, not time: reading it would hold its 200 MB.
    tracemalloc.start()
    try:
        with pytest.raises(CommandError) as refusal:
            call_command("import_contest", str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * MB
    assert str(refusal.value) == (
        "Nothing was imported:\n  - contest.json holds more than 200 MB of JSON "
        "(BACKUP_JSON_MAX_MB), more than any contest's backup; import the file export_contest "
        "wrote, or set BACKUP_JSON_MAX_MB higher."
    )


def test_export_refuses_a_backup_larger_than_restoring_reads_back_and_writes_nothing(
    tmp_path, contest, settings
):
    # Explanations of 1.5 MB in all: a backup of a little more.
    solutions = Solution.objects.filter(paper__contest=contest)
    solutions.update(explanation="x" * (3 * MB // (2 * solutions.count())))
    settings.BACKUP_MAX_MB = 1
    path = tmp_path / "contest.zip"
    with pytest.raises(CommandError) as refusal:
        call_command("export_contest", contest=contest.slug, out=str(path), verbosity=0)
    assert re.fullmatch(
        rf"The backup of {contest.name} would hold \d+\.\d MB, more than the 1 MB that "
        r"import_contest reads back \(BACKUP_MAX_MB\); nothing was written\. Set BACKUP_MAX_MB "
        r"higher, here and wherever the backup will be restored\.",
        str(refusal.value),
    )
    assert not path.exists()
    # Raised, as the sentence says, the backup is written and reads back whole.
    settings.BACKUP_MAX_MB = 2
    call_command("export_contest", contest=contest.slug, out=str(path), verbosity=0)
    assert len(backup_read(path)["papers"]) == 3


def test_export_names_a_missing_page_image_in_a_sentence_not_a_traceback(tmp_path, contest):
    paper = contest.papers.first()
    ScanPage.objects.create(
        paper=paper,
        problem=contest.problems.get(number=1),
        position=1,
        image="gone/page.png",
        width=10,
        height=10,
    )
    with pytest.raises(CommandError, match=r"^The image of page 1 of .+ is missing from SCANS_DIR"):
        call_command("export_contest", contest=contest.slug, out=str(tmp_path / "b.json"))
