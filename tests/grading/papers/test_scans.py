"""What jurors see of a human paper: its scanned pages served to those who may read the paper
(and a 404 for everyone else), in the sheet's solution pane and on the paper page instead of
typed answers, and never a word of which kind of paper it is."""

import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from grading.models import Assignment, Paper, PaperLabel, ScanPage
from grading.rules import roles
from tests import factories
from tests.grading.scan_pages import add_human_papers, add_scans

CODES = ["C-4471-QX", "C-9902-ZU"]


@pytest.fixture(autouse=True)
def scans_dir(settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    settings.CACHE_DIR = tmp_path / "cache"
    return settings.SCANS_DIR


@pytest.fixture
def scanned(db, juror, other_juror, outside_juror):
    """One AI paper and two human papers (two pages each per problem); alice and bob grade
    problem 1, charlie problem 2."""
    contest = factories.make_contest("scan", identities=["Team Orca"])
    add_human_papers(contest, CODES, pages=2)
    factories.assign(contest, [juror, other_juror], problems=[1])
    factories.assign(contest, [outside_juror], problems=[2])
    return contest


def _label(contest, identity: str, number: int = 1) -> str:
    return PaperLabel.objects.get(
        paper__contest=contest, paper__identity=identity, problem__number=number
    ).label


def _image_url(contest, label: str, position: int, number: int = 1) -> str:
    return reverse("scan_page_image", args=[contest.slug, number, label, position])


def test_a_page_image_is_served_as_stored_privately_and_without_a_file_name(client, scanned, juror):
    label = _label(scanned, CODES[0])
    page = ScanPage.objects.get(paper__identity=CODES[0], problem__number=1, position=2)
    client.force_login(juror)
    response = client.get(_image_url(scanned, label, 2))
    stored = (Path(settings.SCANS_DIR) / page.image).read_bytes()
    assert (
        response.status_code,
        response["Content-Type"],
        response["Cache-Control"],
        response.has_header("Content-Disposition"),
        response.content == stored,
    ) == (200, "image/png", "private, max-age=3600", False, True)
    assert _image_url(scanned, label, 2) == f"/contests/scan/p1/papers/{label}/pages/2.png"


def test_page_images_answer_as_the_paper_page_does_for_each_role(
    client, scanned, juror, outside_juror
):
    chair = factories.make_user("chen", roles.CHAIR)
    organizer = factories.make_user("olga", roles.ORGANIZER)
    # dora grades problem 1 too, but not this paper: a juror reads only her own papers.
    dora = factories.make_user("dora", roles.JUROR)
    factories.assign(scanned, [dora], problems=[1])
    human = Paper.objects.get(identity=CODES[0])
    Assignment.objects.filter(juror=dora, paper=human).delete()
    label = _label(scanned, CODES[0])
    url = _image_url(scanned, label, 1)
    statuses = {}
    for name, user in (
        ("alice", juror),
        ("charlie", outside_juror),
        ("dora", dora),
        ("chair", chair),
        ("organizer", organizer),
    ):
        client.force_login(user)
        statuses[name] = (
            client.get(url).status_code,
            client.get(reverse("paper_detail", args=["scan", 1, label])).status_code,
        )
    client.logout()
    anonymous = client.get(url)
    assert statuses == {
        "alice": (200, 200),
        "charlie": (404, 404),
        "dora": (404, 404),
        "chair": (200, 200),
        "organizer": (200, 200),
    }
    assert (anonymous.status_code, anonymous["Location"].startswith("/accounts/login/")) == (
        302,
        True,
    )


def test_a_page_that_does_not_exist_or_leads_out_of_the_scans_folder_is_a_404(
    client, scanned, juror, tmp_path
):
    client.force_login(juror)
    human_label = _label(scanned, CODES[0])
    ai_label = _label(scanned, "Team Orca")
    # A row edited by hand to point outside SCANS_DIR does not open that file.
    (tmp_path / "outside.png").write_bytes(b"\x89PNG outside")
    ScanPage.objects.filter(paper__identity=CODES[0], problem__number=1, position=2).update(
        image="../outside.png"
    )
    assert [
        client.get(_image_url(scanned, human_label, 3)).status_code,
        client.get(_image_url(scanned, ai_label, 1)).status_code,
        client.get(_image_url(scanned, "NOPE", 1)).status_code,
        client.get(_image_url(scanned, human_label, 2)).status_code,
        client.get(_image_url(scanned, human_label, 1)).status_code,
    ] == [404, 404, 404, 404, 200]


def _img_srcs(html: str) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', html)


def test_the_sheet_shows_a_human_papers_pages_instead_of_typed_answers(client, scanned, juror):
    client.force_login(juror)
    label = _label(scanned, CODES[1])
    pane = client.get(reverse("sheet_solution", args=["scan", 1, label])).content.decode()
    assert _img_srcs(pane) == [_image_url(scanned, label, 1), _image_url(scanned, label, 2)]
    # The paper has no typed answers to show; the official ones are folded away beside its pages.
    assertInHTML("<th>Answer</th>", pane, count=0)
    assertInHTML("<summary>Official answers</summary>", pane)
    assert '<td>2</td><td class="ling">water / the water</td>' in pane
    assert "data-scan-viewer" in pane
    assert "PageDown" in pane
    assertInHTML("<kbd>[</kbd>", pane)
    # An AI paper's pane is as it was: typed answers, no viewer.
    ai = client.get(
        reverse("sheet_solution", args=["scan", 1, _label(scanned, "Team Orca")])
    ).content.decode()
    assert (_img_srcs(ai), "data-scan-viewer" in ai, "Explanation" in ai) == ([], False, True)
    # The sheet page loads the viewer's script and style.
    sheet = client.get(reverse("sheet", args=["scan", 1]) + f"?row={label}").content.decode()
    assert ("grading/scans.js" in sheet, "grading/scans.css" in sheet) == (True, True)
    assert _img_srcs(sheet) == [_image_url(scanned, label, 1), _image_url(scanned, label, 2)]


KIND_WORDS = re.compile(r"\b(human|humans|AI|contestant|contestants|scanned|handwritten)\b", re.I)


def test_a_juror_is_never_told_which_kind_a_paper_is(client, scanned, juror):
    client.force_login(juror)
    pages = []
    for identity in (CODES[0], "Team Orca"):
        label = _label(scanned, identity)
        pages.append(client.get(reverse("sheet_solution", args=["scan", 1, label])))
        pages.append(client.get(reverse("paper_detail", args=["scan", 1, label])))
    pages.append(client.get(reverse("sheet", args=["scan", 1])))
    texts = [response.content.decode() for response in pages]
    assert [KIND_WORDS.findall(text) for text in texts] == [[]] * len(texts)
    assert [code for code in CODES if any(code in text for text in texts)] == []


def test_the_organizer_sees_the_kind_and_the_code_on_the_paper_page(client, scanned, organizer):
    client.force_login(organizer)
    label = _label(scanned, CODES[0])
    page = client.get(reverse("paper_detail", args=["scan", 1, label])).content.decode()
    identity = re.search(r'<p class="identity">(.*?)</p>', page).group(1)
    assert re.sub(r"<[^>]+>", "", identity) == f"Contestant: {CODES[0]} (Human contestant)"
    assert _img_srcs(page) == [_image_url(scanned, label, 1), _image_url(scanned, label, 2)]


def test_a_human_paper_without_pages_for_the_problem_says_so(client, scanned, juror):
    ScanPage.objects.filter(paper__identity=CODES[0], problem__number=1).delete()
    client.force_login(juror)
    label = _label(scanned, CODES[0])
    pane = client.get(reverse("sheet_solution", args=["scan", 1, label])).content.decode()
    assert ("This paper has no pages for this problem." in pane, _img_srcs(pane)) == (True, [])


def _sheet_queries(client, juror, slug: str) -> int:
    client.force_login(juror)
    url = reverse("sheet", args=[slug, 1])
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200 and b"data-scan-viewer" in response.content
    return len(queries)


def test_a_sheet_of_human_papers_runs_the_same_queries_for_4_and_40_papers(client, db):
    juror = factories.make_user("dora", "juror")
    counts = []
    for size, slug in ((4, "small"), (40, "large")):
        contest = factories.make_contest(slug, problems=1, papers=0, identities=["Team Orca"])
        Paper.objects.filter(contest=contest).delete()
        add_human_papers(contest, [f"{slug}-{n}" for n in range(size)], pages=1)
        factories.assign(contest, [juror])
        counts.append(_sheet_queries(client, juror, slug))
    assert counts[0] == counts[1]


# ---------------------------------------------------------------------------------------------
# Printouts


def _pdf(response) -> tuple[int, list[tuple[str, str]]]:
    """(pages, [(page, type) of every image]) of a PDF response, read by poppler."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    path = Path(settings.SCANS_DIR).parent / "read.pdf"
    path.write_bytes(body)
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    listing = subprocess.run(
        ["pdfimages", "-list", path], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    return pages, [(line.split()[0], line.split()[2]) for line in listing]


def _pdf_text() -> str:
    """The text of the PDF `_pdf` read last, by poppler's pdftotext."""
    return subprocess.run(
        ["pdftotext", Path(settings.SCANS_DIR).parent / "read.pdf", "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_a_human_papers_printout_holds_one_scanned_page_per_printed_page(client, scanned, juror):
    human = Paper.objects.get(identity=CODES[0])
    ScanPage.objects.filter(paper=human, problem__number=1).delete()
    add_scans(human, scanned.problems.get(number=1), 3, size=(600, 840))
    client.force_login(juror)
    label = _label(scanned, CODES[0])
    response = client.get(reverse("paper_pdf", args=["scan", 1, label]))
    assert _pdf(response) == (3, [("1", "image"), ("2", "image"), ("3", "image")])
    # With the marking page, a fourth page without an image.
    response = client.get(reverse("paper_pdf", args=["scan", 1, label]) + "?criteria=1")
    assert _pdf(response)[0] == 4


def test_a_page_whose_image_is_gone_is_named_missing_in_its_place_not_left_out(
    client, scanned, juror
):
    human = Paper.objects.get(identity=CODES[0])
    first = ScanPage.objects.get(paper=human, problem__number=1, position=1)
    (Path(settings.SCANS_DIR) / first.image).unlink()
    client.force_login(juror)
    response = client.get(reverse("paper_pdf", args=["scan", 1, _label(scanned, CODES[0])]))
    pages, images = _pdf(response)
    text = _pdf_text()
    # Page 1 says it is missing where it belongs; page 2 prints its image on the next page.
    assert (pages, images) == (2, [("2", "image")])
    assert "Page 1 of 2 of this answer is missing" in " ".join(text.split())


def test_a_jurors_bundle_prints_the_scanned_pages_beside_the_typed_papers(client, scanned, juror):
    client.force_login(juror)
    response = client.get(reverse("problem_pdf_bundle", args=["scan", 1]))
    pages, images = _pdf(response)
    # Two human papers of two pages each, one image per page; the AI paper prints as text.
    assert (len(images), len({page for page, _ in images}), pages) == (4, 4, 5)
    text = _pdf_text()
    assert [code for code in CODES if code in text] == []
    labels = sorted(
        link.label for link in PaperLabel.objects.filter(problem__number=1, paper__contest=scanned)
    )
    assert [text.count(f"Paper {label}") >= 1 for label in labels] == [True] * 3
