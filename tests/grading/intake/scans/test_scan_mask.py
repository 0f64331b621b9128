"""The scan mask follows the answer sheet: the covers tell contestants to write their code in
the box at the top of the first page of their answer, and the import paints over that band on
those pages only, so a continuation page's first lines stay to be read. Each contest sets the
band's height and the pages it covers (the admin's door, a backup and the migration keep it)."""

from decimal import Decimal

import pypdfium2 as pdfium
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from PIL import Image
from pytest_django.asserts import assertContains

from grading.intake.scans.importing import ScanFile, scans_import
from grading.models import ScanPage
from grading.papers.images import MASK_GREY
from grading.printing.covers import covers_pdf
from rubrics.models import SCAN_MASK_PERCENT, Contest
from tests import factories
from tests.grading.intake.scans import scanmaker


@pytest.fixture
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    return settings.SCANS_DIR


@pytest.fixture
def contest(db):
    return factories.make_contest("iol", problems=1, papers=1)


def _tops(scans_dir, percent) -> list[tuple[int, bool, bool]]:
    """(position, whether the top `percent` band is all mask, whether it holds ink) per page of
    the one answer imported."""
    found = []
    for scan in ScanPage.objects.order_by("position"):
        with Image.open(scans_dir / scan.image) as image:
            image.load()
            band = image.crop((0, 0, image.width, round(image.height * percent / 100)))
            values = set(band.get_flattened_data())
            found.append((scan.position, values == {MASK_GREY}, min(values) < 128))
    return found


def test_a_continuation_pages_first_line_is_read_and_the_code_box_is_covered(contest, scans_dir):
    cover = scanmaker.covers(contest, ["C101"])["C101", 1]
    pages = [cover, *scanmaker.answer_pages("C101", 1, 3)]
    scans_import(contest=contest, files=[ScanFile("scan-1.pdf", scanmaker.as_pdf(pages))])
    assert _tops(scans_dir, SCAN_MASK_PERCENT) == [
        (1, True, False),
        (2, False, True),
        (3, False, True),
    ]


def test_a_page_maps_answers_are_masked_on_their_first_pages(contest, scans_dir):
    factories.make_contest("two", problems=2, papers=0)
    contest = Contest.objects.get(slug="two")
    pages = [*scanmaker.answer_pages("C201", 1, 2), *scanmaker.answer_pages("C201", 2, 1)]
    page_map = ScanFile(
        "map.csv", b"file,problem,first_page,last_page\nC201.pdf,1,1,2\nC201.pdf,2,3,3\n"
    )
    scans_import(
        contest=contest, files=[ScanFile("C201.pdf", scanmaker.as_pdf(pages))], page_map=page_map
    )
    masked = {
        (scan.problem.number, scan.position): _is_masked(scans_dir, scan, SCAN_MASK_PERCENT)
        for scan in ScanPage.objects.select_related("problem")
    }
    assert masked == {(1, 1): True, (1, 2): False, (2, 1): True}


def _is_masked(scans_dir, scan, percent) -> bool:
    with Image.open(scans_dir / scan.image) as image:
        image.load()
        band = image.crop((0, 0, image.width, round(image.height * percent / 100)))
        return set(band.get_flattened_data()) == {MASK_GREY}


def test_a_contest_whose_code_is_on_every_page_masks_every_page_at_its_height(contest, scans_dir):
    Contest.objects.filter(pk=contest.pk).update(
        scan_mask_pages=Contest.MaskPages.EVERY, scan_mask_percent=Decimal("20")
    )
    contest.refresh_from_db()
    cover = scanmaker.covers(contest, ["C101"])["C101", 1]
    pages = [cover, *scanmaker.answer_pages("C101", 1, 2, code_on_every_page=True)]
    scans_import(contest=contest, files=[ScanFile("scan-1.pdf", scanmaker.as_pdf(pages))])
    assert _tops(scans_dir, 20) == [(1, True, False), (2, True, False)]


def _cover_note(contest) -> str:
    document = pdfium.PdfDocument(covers_pdf(contest=contest, codes=["C101"]))
    try:
        text = document[0].get_textpage().get_text_range()
    finally:
        document.close()
    words = text.split()
    return " ".join(words[words.index("Write") + 4 :])


def test_the_covers_tell_contestants_where_the_mask_is(contest):
    assert _cover_note(contest) == (
        "Write your code, never your name, in the box at the top of the first page of your "
        "answer, and nothing that names you on any page: the top 12 % of that page is covered "
        "before grading."
    )
    Contest.objects.filter(pk=contest.pk).update(
        scan_mask_pages=Contest.MaskPages.EVERY, scan_mask_percent=Decimal("15.5")
    )
    contest.refresh_from_db()
    assert _cover_note(contest) == (
        "Write your code, never your name, in the box at the top of every answer page: the top "
        "15.5 % of each page is covered before grading."
    )


def _admin_form(contest, **changes) -> dict:
    fields = {
        "slug": contest.slug,
        "name": contest.name,
        "max_total": "100",
        "working_language": contest.working_language,
        "scan_mask_percent": "12",
        "scan_mask_pages": "first",
    }
    for prefix in ("cutoffs", "problems", "events"):
        fields |= {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}
    return fields | changes


def test_the_organizer_sets_the_mask_in_the_admin_within_its_bounds(client, organizer):
    contest = Contest.objects.create(slug="mask", name="Mask")
    client.force_login(organizer)
    url = reverse("admin:rubrics_contest_change", args=[contest.pk])
    refused = client.post(url, _admin_form(contest, scan_mask_percent="60"))
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors == {
        "scan_mask_percent": ["Ensure this value is less than or equal to 50."]
    }
    saved = client.post(url, _admin_form(contest, scan_mask_percent="9,5", scan_mask_pages="every"))
    assert saved.status_code == 302, saved.context and saved.context["adminform"].form.errors
    contest.refresh_from_db()
    assert (contest.scan_mask_percent, contest.scan_mask_pages) == (Decimal("9.5"), "every")


@pytest.mark.django_db(transaction=True)
def test_contests_made_before_the_setting_keep_every_page_masked_and_new_ones_follow_the_sheet():
    executor = MigrationExecutor(connection)
    before, after = [("rubrics", "0005_scheme_versions")], [("rubrics", "0006_contest_scan_mask")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("rubrics", "Contest")
    old.objects.create(slug="old", name="Old", state="grading")
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    new = Contest.objects.create(slug="new", name="New")
    assert sorted(Contest.objects.values_list("slug", "scan_mask_percent", "scan_mask_pages")) == [
        ("new", Decimal("12.0"), "first"),
        ("old", Decimal("12.0"), "every"),
    ]
    assert new.masks_scan_page(2) is False


def test_the_covers_page_tells_the_organizer_where_the_mask_is_and_where_to_set_it(
    client, organizer, contest
):
    client.force_login(organizer)
    response = client.get(reverse("console:print_covers", args=[contest.slug]))
    admin = reverse("admin:rubrics_contest_change", args=[contest.pk])
    assertContains(
        response,
        '<p id="scan-mask">Each cover tells the contestant to write their code in the box at the '
        "top of the first page of their answer; the scan import paints over the top 12 % of "
        "those pages only, so that a later page's first lines stay to be read. This is the "
        f'contest\'s scan mask, set in <a href="{admin}">the admin</a>.</p>',
        html=True,
    )
