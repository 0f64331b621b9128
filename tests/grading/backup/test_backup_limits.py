"""import_contest reads a backup within a bound: a small gzip that unpacks to hundreds of MB,
or a plain file larger than any backup, is refused with a sentence before it fills memory."""

import gzip
import time
import tracemalloc

import pytest
from django.core.management import CommandError, call_command

from grading.backup.export import MAX_BACKUP_BYTES, backup_read
from rubrics.models import Contest

MB = 1024 * 1024


def _gzip_bomb(path, unpacked: int) -> None:
    # Concatenated gzip members unpack to the concatenation: 4 MB of spaces packs to 4 KB.
    member = gzip.compress(b" " * (4 * MB), mtime=0)
    path.write_bytes(member * (unpacked // (4 * MB)))


def test_a_small_gzip_that_unpacks_past_the_bound_is_refused_while_unpacking(tmp_path, db):
    path = tmp_path / "contest.json.gz"
    _gzip_bomb(path, 2 * MAX_BACKUP_BYTES)
    assert path.stat().st_size < 8 * MB
    start = time.perf_counter()
    with pytest.raises(CommandError) as refusal:
        call_command("import_contest", str(path))
    assert time.perf_counter() - start < 5
    assert str(refusal.value) == (
        "Nothing was imported:\n  - contest.json.gz unpacks to more than 200 MB, more than any "
        "contest's backup; import the file export_contest wrote."
    )
    assert Contest.objects.count() == 0


def test_unpacking_stops_at_the_bound_rather_than_holding_the_whole_content(tmp_path):
    path = tmp_path / "contest.json.gz"
    _gzip_bomb(path, 4 * MAX_BACKUP_BYTES)
    tracemalloc.start()
    try:
        with pytest.raises(Exception, match="unpacks to more than 200 MB"):
            backup_read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The bound plus one chunk and the bytearray's spare room; the whole would be 800 MB.
    assert peak < MAX_BACKUP_BYTES * 1.3


def test_a_plain_file_larger_than_any_backup_is_refused_unread(tmp_path, db):
    path = tmp_path / "contest.json"
    with path.open("wb") as stream:
        stream.truncate(MAX_BACKUP_BYTES + 1)  # sparse: nothing is written to the disk
    start = time.perf_counter()
    with pytest.raises(CommandError) as refusal:
        call_command("import_contest", str(path))
    assert time.perf_counter() - start < 1
    assert str(refusal.value) == (
        "Nothing was imported:\n  - contest.json holds more than 200 MB, more than any "
        "contest's backup; import the file export_contest wrote."
    )
