"""The backup archive (version 2): pages go in and come out member by member, so memory does not
grow with them; a member that escapes, links, or is not the image its page names is refused;
every bound is a setting named in its refusal, both when the backup is written and when it is
read; a refused restore leaves SCANS_DIR as it was."""

import hashlib
import io
import json
import stat
import tracemalloc
import zipfile

import pytest

# As in the running site: WeasyPrint, once imported, makes Pillow load truncated images quietly.
import weasyprint  # noqa: F401
from django.core.management import CommandError, call_command
from PIL import Image, PngImagePlugin

from grading.backup.archive import backup_open, backup_write
from grading.backup.restore import contest_import
from grading.models import Paper, ScanPage, Solution
from grading.papers import images
from rubrics.models import Contest
from tests.grading.backup.backup_helpers import (
    forget_everything,
    rewrite_archive,
    rewritten_document,
)

MB = 1024 * 1024


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    settings.SCANS_DIR.mkdir()
    return settings.SCANS_DIR


def _png(width: int, height: int, *, level: int = 6, seed: int = 0) -> bytes:
    """A page of grey noise (which does not compress), pixels only."""
    noise = hashlib.shake_256(str(seed).encode()).digest(width * height)
    out = io.BytesIO()
    Image.frombytes("L", (width, height), noise).save(out, format="PNG", compress_level=level)
    return out.getvalue()


def _with_pages(contest, scans_dir, pages: list[bytes]) -> None:
    human = Paper.objects.create(contest=contest, source=Paper.Source.HUMAN, identity="C204")
    problem = contest.problems.get(number=1)
    rows = []
    for position, data in enumerate(pages, start=1):
        name = images.random_name()
        (scans_dir / name).write_bytes(data)
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
        rows.append(
            ScanPage(
                paper=human,
                problem=problem,
                position=position,
                image=name,
                width=width,
                height=height,
            )
        )
    ScanPage.objects.bulk_create(rows)


@pytest.fixture
def scanned(contest, scans_dir):
    _with_pages(contest, scans_dir, [_png(40, 60, seed=1), _png(41, 60, seed=2)])
    return contest


@pytest.fixture
def archive(scanned, tmp_path):
    path = tmp_path / "backup.zip"
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    forget_everything()
    return path


def _refusal(path) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("import_contest", str(path), verbosity=0)
    return str(caught.value)


def _scans(scans_dir) -> list[str]:
    return sorted(path.name for path in scans_dir.iterdir())


def test_pages_totalling_over_100_mb_go_out_and_come_back_in_a_few_mb_of_memory(
    contest, scans_dir, tmp_path
):
    # 110 pages of 1 MB of noise: the version 1 backup held them all, as base64, at once.
    page = _png(1024, 1024, level=1)
    _with_pages(contest, scans_dir, [page] * 110)
    path = tmp_path / "backup.zip"
    tracemalloc.start()
    try:
        backup_write(contest=contest, path=path)
        _, exported = tracemalloc.get_traced_memory()
        forget_everything()
        tracemalloc.reset_peak()
        with backup_open(path) as backup:
            summary = contest_import(document=backup.document, pages=backup.pages)
        _, restored = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    total = 110 * len(page)
    assert (total > 100 * MB, summary.scan_pages) == (True, 110)
    # One chunk of 1 MB and the rows at a time, not the pages' total.
    assert (exported < total / 10, restored < total / 10) == (True, True)
    stored = ScanPage.objects.order_by("position").values_list("image", flat=True)
    assert {(scans_dir / name).read_bytes() == page for name in stored} == {True}


def _symlink(path) -> None:
    with zipfile.ZipFile(path, "a") as archive:
        info = zipfile.ZipInfo("pages/000009.png")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")


@pytest.mark.parametrize(
    ("member", "sentence"),
    [
        ("../evil.png", "“../evil.png” is not a file export_contest writes"),
        ("/etc/cron.d/evil", "“/etc/cron.d/evil” is not a file export_contest writes"),
        ("pages/../../evil.png", "“pages/../../evil.png” is not a file export_contest writes"),
        ("pages/C204-1.png", "“pages/C204-1.png” is not a file export_contest writes"),
    ],
    ids=["parent", "absolute", "inner-parent", "named"],
)
def test_an_archive_with_a_member_export_contest_does_not_write_is_refused_unread(
    archive, scans_dir, member, sentence
):
    rewrite_archive(archive, members={member: b"x"})
    before = _scans(scans_dir)
    assert _refusal(archive) == (
        f"Nothing was imported:\n  - backup.zip: {sentence} (backup.json, pages/000001.png, "
        "…); such an archive is refused."
    )
    assert (Contest.objects.count(), _scans(scans_dir)) == (0, before)


def test_an_archive_with_a_symbolic_link_is_refused_unread(archive, scans_dir):
    _symlink(archive)
    assert _refusal(archive) == (
        "Nothing was imported:\n  - backup.zip: “pages/000009.png” is a symbolic link; such an "
        "archive is refused."
    )


def _with_metadata() -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "C204")
    out = io.BytesIO()
    Image.new("L", (40, 60), 200).save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("L", (40, 60), 200).save(out, format="JPEG")
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        (_jpeg, "the image is not a PNG; a scanned page is stored as PNG."),
        (lambda: _png(40, 61), "the image has 40 × 61 pixels, not the 40 × 60 the page says."),
        (_with_metadata, "the image carries metadata (Comment); a scanned page holds pixels only."),
        (lambda: _png(40, 60)[:-30], "the image is a damaged PNG that cannot be read."),
    ],
    ids=["jpeg", "wrong-size", "metadata", "truncated"],
)
def test_a_page_member_that_is_not_a_scanned_pages_png_is_refused_and_nothing_written(
    archive, scans_dir, data, sentence
):
    rewrite_archive(archive, members={"pages/000001.png": data()})
    before = _scans(scans_dir)
    assert _refusal(archive) == f"Nothing was imported:\n  - backup.zip, scan_pages[0]: {sentence}"
    assert (Contest.objects.count(), _scans(scans_dir)) == (0, before)


def test_a_page_member_that_is_not_the_image_its_page_names_is_refused(archive, scans_dir):
    document = rewritten_document(archive)
    rewrite_archive(archive, document=document, members={"pages/000002.png": _png(41, 60)})
    assert _refusal(archive) == (
        "Nothing was imported:\n  - backup.zip, scan_pages[1]: pages/000002.png is not the "
        "image the page names (its SHA-256 differs)."
    )


def test_pages_naming_a_missing_member_or_one_member_twice_are_refused(archive):
    document = rewritten_document(archive)
    document["scan_pages"][0]["image"] = "pages/000007.png"
    document["scan_pages"][1]["position"] = 3
    document["scan_pages"].append(document["scan_pages"][1] | {"position": 4})
    rewrite_archive(archive, document=document)
    assert _refusal(archive).splitlines() == [
        "Nothing was imported:",
        "  - backup.zip, scan_pages[0]: the archive holds no pages/000007.png.",
        "  - backup.zip, scan_pages[2]: the image pages/000002.png is the image of "
        "scan_pages[1] too.",
    ]


def _members(path) -> list[zipfile.ZipInfo]:
    with zipfile.ZipFile(path) as archive:
        return archive.infolist()


def test_every_bound_of_the_archive_is_a_setting_named_in_its_refusal(archive, settings):
    settings.BACKUP_MAX_MEMBERS = 2
    assert _refusal(archive) == (
        "Nothing was imported:\n  - backup.zip: the archive holds 3 files; a backup holds at "
        "most 2 (BACKUP_MAX_MEMBERS)."
    )
    settings.BACKUP_MAX_MEMBERS = 3
    rewrite_archive(archive, members={"pages/000001.png": _png(1100, 1000, seed=3)})
    total = sum(info.file_size for info in _members(archive))
    settings.BACKUP_MAX_MB = 1
    assert _refusal(archive) == (
        "Nothing was imported:\n  - backup.zip: the archive's files come to "
        f"{total / MB:.1f} MB once extracted; a backup is at most 1 MB (BACKUP_MAX_MB)."
    )
    settings.BACKUP_MAX_MB = 2
    settings.BACKUP_PAGE_MAX_MB = 1
    assert _refusal(archive) == (
        "Nothing was imported:\n  - backup.zip, scan_pages[0]: the image is larger than 1 MB "
        "(BACKUP_PAGE_MAX_MB), more than any scanned page; it was not made by export_contest."
    )
    settings.BACKUP_PAGE_MAX_MB = 2
    settings.BACKUP_MAX_MB = 3
    document = rewritten_document(archive)
    document["papers"][0]["metadata"] = {"notes": "x" * (3 * MB // 2)}
    document["scan_pages"][0] |= {"width": 1100, "height": 1000}  # as the larger page is
    rewrite_archive(archive, document=document)
    settings.BACKUP_JSON_MAX_MB = 1
    assert _refusal(archive) == (
        "Nothing was imported:\n  - backup.zip's backup.json holds more than 1 MB of JSON "
        "(BACKUP_JSON_MAX_MB), more than any contest's backup; import the file export_contest "
        "wrote, or set BACKUP_JSON_MAX_MB higher."
    )
    settings.BACKUP_JSON_MAX_MB = 2
    call_command("import_contest", str(archive), verbosity=0)
    assert ScanPage.objects.count() == 2


def _export_refusal(path) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("export_contest", contest="test", out=str(path), verbosity=0)
    return str(caught.value)


def test_export_refuses_what_the_restore_would_refuse_naming_the_setting_and_writes_nothing(
    contest, scans_dir, settings, tmp_path
):
    page = _png(1100, 1000, seed=4)
    _with_pages(contest, scans_dir, [page])
    path = tmp_path / "backup.zip"
    tail = "here and wherever the backup will be restored."
    settings.BACKUP_MAX_MEMBERS = 1
    assert _export_refusal(path) == (
        "The backup of Contest test would hold 2 files, more than the 1 files that "
        "import_contest reads back (BACKUP_MAX_MEMBERS); nothing was written. Set "
        f"BACKUP_MAX_MEMBERS higher, {tail}"
    )
    settings.BACKUP_MAX_MEMBERS = 2
    settings.BACKUP_PAGE_MAX_MB = 1
    assert _export_refusal(path) == (
        f"The backup of Contest test would hold a page image of {len(page) / MB:.1f} MB, more "
        "than the 1 MB that import_contest reads back (BACKUP_PAGE_MAX_MB); nothing was "
        f"written. Set BACKUP_PAGE_MAX_MB higher, {tail}"
    )
    settings.BACKUP_PAGE_MAX_MB = 2
    solutions = Solution.objects.filter(paper__contest=contest)
    solutions.update(explanation="x" * (3 * MB // (2 * solutions.count())))
    settings.BACKUP_JSON_MAX_MB = 1
    refusal = _export_refusal(path)
    assert refusal.startswith("The backup of Contest test would hold a document of 1.")
    assert refusal.endswith(
        "MB, more than the 1 MB that import_contest reads back (BACKUP_JSON_MAX_MB); nothing "
        f"was written. Set BACKUP_JSON_MAX_MB higher, {tail}"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scans"]
    settings.BACKUP_JSON_MAX_MB = 2
    call_command("export_contest", contest="test", out=str(path), verbosity=0)
    assert json.loads(zipfile.ZipFile(path).read("backup.json"))["version"] == 2
