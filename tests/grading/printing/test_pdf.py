"""Printouts: faithful (every item, IPA, tables), anonymous (text, metadata, names), in Charis
SIL, cached by content, and only for those who may read the paper. PDFs are read back with
poppler's pdftotext, pdfinfo, pdffonts and pdfdetach."""

import io
import re
import shutil
import subprocess
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from grading.models import Assignment, GradingGroup, PaperLabel, Solution
from grading.papers import items
from grading.printing import engine, pdf
from grading.printing import selectors as pdf_selectors
from grading.rules import roles
from rubrics.models import Criterion, Problem
from tests import factories

POPPLER = ("pdftotext", "pdfinfo", "pdffonts", "pdfdetach")


@pytest.fixture(autouse=True)
def poppler_present():
    # A missing tool fails with what to install rather than skipping: these tests are the only
    # check that printouts are faithful and anonymous. `make test` installs it as root.
    missing = [tool for tool in POPPLER if not shutil.which(tool)]
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: install Debian's poppler-utils.")


IPA = "ŋ̂ ɑ̃ t͡ʃ ḿ"
CYRILLIC_GREEK = "кошка γλῶσσα"
SECRETS = ["Team Orca", "Team Heron", "Team Lynx", "orca-llm-70b", "github.com/orca/solver"]


@pytest.fixture(autouse=True)
def pdf_cache(settings, tmp_path):
    settings.CACHE_DIR = tmp_path / "cache"
    return settings.CACHE_DIR / "pdf"


@pytest.fixture
def render_count(monkeypatch):
    """How many times a paper was really rendered (not read from the cache)."""
    calls = []
    original = pdf.render_pdf

    def counting(html):
        calls.append(html)
        return original(html)

    monkeypatch.setattr(pdf, "render_pdf", counting)
    return calls


@pytest.fixture
def dora(contest):
    """A juror of problem 1 who was given only the first paper."""
    user = factories.make_user("dora", roles.JUROR)
    problem = contest.problems.get(number=1)
    GradingGroup.objects.get(problem=problem).jurors.add(user)
    Assignment.objects.create(
        paper=contest.papers.order_by("pk").first(), problem=problem, juror=user
    )
    return user


def label_of(contest, paper, number=1) -> str:
    return PaperLabel.objects.get(
        paper=paper, problem__contest=contest, problem__number=number
    ).label


def first_paper(contest):
    paper = contest.papers.order_by("pk").first()
    paper.metadata = {
        "team": "Team Orca",
        "model": "orca-llm-70b",
        "repo": "github.com/orca/solver",
    }
    paper.save()
    return paper


def _poppler(tool: str, data: bytes, tmp_path: Path, *args: str) -> str:
    path = tmp_path / "read.pdf"
    path.write_bytes(data)
    command = [tool, *args, str(path)] + (["-"] if tool == "pdftotext" else [])
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def pdftotext(data: bytes, tmp_path: Path, *, layout: bool = False) -> str:
    return _poppler("pdftotext", data, tmp_path, *(["-layout"] if layout else []))


def pdfinfo(data: bytes, tmp_path: Path) -> dict[str, str]:
    lines = _poppler("pdfinfo", data, tmp_path).splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def pdffonts(data: bytes, tmp_path: Path) -> list[tuple[str, str]]:
    """(font name without the subset tag, embedded yes/no) per font."""
    rows = _poppler("pdffonts", data, tmp_path).splitlines()[2:]
    return sorted((row.split()[0].split("+")[-1], row.split()[-5]) for row in rows)


def answer_rows(text_layout: str) -> list[tuple[str, str]]:
    """The (item, answer) rows of every answers table, from `pdftotext -layout`."""
    rows, inside = [], False
    for line in text_layout.splitlines():
        if re.match(r"^\s*Item\s+Answer\s*$", line):
            inside = True
        elif line.strip() == "Explanation":
            inside = False
        elif inside and line.strip():
            item, answer = line.strip().split(None, 1)
            rows.append((item, answer.strip()))
    return rows


def render_paper(contest, paper, number=1, *, criteria=False) -> bytes:
    problem = Problem.objects.select_related("contest").get(contest=contest, number=number)
    data = pdf_selectors.problem_print(problem=problem, labels=[label_of(contest, paper, number)])
    return pdf.cached_pdf(
        pdf.paper_html(
            problem=problem, paper=data.papers[0], criteria=data.criteria if criteria else None
        )
    )


# ---------------------------------------------------------------------------------------------
# Faithful


def test_every_answer_item_and_the_explanation_are_in_the_text_with_ipa_intact(contest, tmp_path):
    paper = first_paper(contest)
    Solution.objects.filter(paper=paper, task__problem__number=1).update(
        answers=[IPA, CYRILLIC_GREEK],
        explanation=f"The prefix nasal is *homorganic*: {IPA}; Cyrillic and Greek: {CYRILLIC_GREEK}.",
    )
    data = render_paper(contest, paper)

    assert answer_rows(pdftotext(data, tmp_path, layout=True)) == [
        ("1", IPA),
        ("2", CYRILLIC_GREEK),
    ]
    text = pdftotext(data, tmp_path)
    explanation = text.split("Explanation\n", 1)[1].split("\n\n", 1)[0]
    assert " ".join(explanation.split()) == (
        f"The prefix nasal is homorganic: {IPA}; Cyrillic and Greek: {CYRILLIC_GREEK}."
    )


def test_items_are_named_as_the_query_names_them(contest, tmp_path):
    paper = first_paper(contest)
    Problem.objects.get(contest=contest, number=1).tasks.update(
        query="Translate into English:\n\n(e) kelo mari\n(f) vamu"
    )
    data = render_paper(contest, paper)
    assert answer_rows(pdftotext(data, tmp_path, layout=True)) == [
        ("e", "the dog sleeps"),
        ("f", "water"),
    ]


@pytest.mark.parametrize(
    ("query", "count", "labels"),
    [
        ("Translate:\n\n(a) anem\n(b) kalta\n(c) sur", 3, ["a", "b", "c"]),
        ("Translate into Vamuri:\n\n7. my houses\n8. birds\n9. my birds", 3, ["7", "8", "9"]),
        (
            "Match the phrases (1–6) with their translations (A–F).",
            6,
            ["1", "2", "3", "4", "5", "6"],
        ),
        ("Fill in the gaps (a)–(d) in the table.", 4, ["a", "b", "c", "d"]),
        (
            "Match (A–C) with the forms (1–3).\n\n1. x\n2. y\n3. z\n\nA. 4\nB. 6\nC. 7",
            3,
            ["1", "2", "3"],
        ),
        ("Explain the rules: ____", 1, ["1"]),
        ("(a) two items named\n(b) for three answers", 3, ["1", "2", "3"]),
    ],
)
def test_item_labels_follow_the_problem_or_fall_back_to_numbers(query, count, labels):
    assert items.item_labels(query, count) == labels


def test_a_markdown_table_comes_out_as_a_table(contest, tmp_path):
    paper = first_paper(contest)
    Solution.objects.filter(paper=paper, task__problem__number=1).update(
        explanation=(
            "Plural forms:\n\n| form | gloss | plural | gloss |\n| --- | --- | --- | --- |\n"
            "| kelo | dog | kelo-ri | dogs |\n| vamu | water | vamu-ri | waters |\n"
        )
    )
    layout = pdftotext(render_paper(contest, paper), tmp_path, layout=True)
    rows = [
        line.split() for line in layout.splitlines() if re.match(r"^\s*(form|kelo|vamu)\s", line)
    ]
    assert rows == [
        ["form", "gloss", "plural", "gloss"],
        ["kelo", "dog", "kelo-ri", "dogs"],
        ["vamu", "water", "vamu-ri", "waters"],
    ]


def test_empty_answer_long_explanation_and_wide_table_render_without_loss(contest, tmp_path):
    paper = first_paper(contest)
    wide = "| " + " | ".join(f"H{n}" for n in range(30)) + " |\n"
    wide += "|" + " --- |" * 30 + "\n"
    wide += "| " + " | ".join(f"reduplicated-stem-{n}" for n in range(30)) + " |\n"
    long_text = "\n\n".join(
        f"Paragraph {n}: the suffix -ri marks the plural after a vowel." for n in range(400)
    )
    Solution.objects.filter(paper=paper, task__problem__number=1).update(
        answers=["the dog sleeps", ""], explanation=f"{long_text}\n\n{wide}\nThe end."
    )
    data = render_paper(contest, paper)

    layout = pdftotext(data, tmp_path, layout=True)
    assert answer_rows(layout) == [("1", "the dog sleeps"), ("2", "(empty)")]
    text = pdftotext(data, tmp_path)
    assert re.findall(r"Paragraph (\d+):", text) == [str(n) for n in range(400)]
    # Cells narrower than their words break inside them (pdftotext then drops the hyphens at
    # line ends): nothing may fall off the page.
    squashed = re.sub(r"\s", "", text)
    assert squashed.count("".join(f"H{n}" for n in range(30))) == 1
    assert re.findall(r"reduplicated-?stem-?(\d+)", squashed) == [str(n) for n in range(30)]
    pages = int(pdfinfo(data, tmp_path)["Pages"])
    footers = re.findall(r"(\w{4}) · page (\d+) of (\d+)", text)
    label = label_of(contest, paper)
    assert footers == [(label, str(n), str(pages)) for n in range(1, pages + 1)]
    assert pages > 5


def test_charis_sil_is_embedded_for_text_ipa_and_cyrillic(contest, tmp_path):
    paper = first_paper(contest)
    Solution.objects.filter(paper=paper, task__problem__number=1).update(
        answers=[IPA, "кошка"], explanation=f"*{IPA}* and кошка."
    )
    fonts = pdffonts(render_paper(contest, paper), tmp_path)
    assert fonts == [
        ("Charis-SIL", "yes"),
        ("Charis-SIL-Bold", "yes"),
        ("Charis-SIL-Italic", "yes"),
    ]


def test_page_counts_one_page_a_paper_and_one_more_with_the_marking_page(contest, tmp_path):
    paper = first_paper(contest)
    assert pdfinfo(render_paper(contest, paper), tmp_path)["Pages"] == "1"
    with_criteria = render_paper(contest, paper, criteria=True)
    assert pdfinfo(with_criteria, tmp_path)["Pages"] == "2"
    marks = pdftotext(with_criteria, tmp_path, layout=True)
    rows = [line.split() for line in marks.splitlines() if re.match(r"^\s*(A1|T1|Total)\s", line)]
    assert rows == [["A1", "assignment", "A1", "12"], ["T1", "theory", "T1", "8"], ["Total", "20"]]


# ---------------------------------------------------------------------------------------------
# Anonymous


def test_no_identity_in_text_metadata_or_attachments_and_title_is_exact(
    client, chair, contest, tmp_path
):
    first_paper(contest)
    client.force_login(chair)
    response = client.get(reverse("problem_pdf_bundle", args=["test", 1]) + "?criteria=1")
    data = response.content
    text = pdftotext(data, tmp_path)
    info = pdfinfo(data, tmp_path)

    assert [secret for secret in SECRETS if secret in text or secret.encode() in data] == []
    assert [secret for secret in SECRETS if any(secret in value for value in info.values())] == []
    assert (info["Title"], info["Creator"], info["Producer"].split()[0]) == (
        "Contest test · P1 · 3 papers",
        "Jury",
        "WeasyPrint",
    )
    assert {key: info.get(key) for key in ("Author", "Subject", "Keywords")} == dict.fromkeys(
        ("Author", "Subject", "Keywords")
    )
    assert _poppler("pdfdetach", data, tmp_path, "-list").strip() == "0 embedded files"


def test_a_paper_title_is_contest_problem_and_label(contest, tmp_path):
    paper = first_paper(contest)
    info = pdfinfo(render_paper(contest, paper), tmp_path)
    assert info["Title"] == f"Contest test · P1 · {label_of(contest, paper)}"


def test_only_the_fonts_may_be_fetched():
    with pytest.raises(ValueError, match="may load only its fonts"):
        engine._FontsOnly().fetch("file:///etc/passwd")
    with pytest.raises(ValueError, match="may load only its fonts"):
        engine._FontsOnly().fetch("https://example.org/tracker.png")
    assert engine._FontsOnly().fetch((pdf.FONT_DIR / "CharisSIL-Regular.ttf").as_uri()).read(4) == (
        b"\x00\x01\x00\x00"
    )


# ---------------------------------------------------------------------------------------------
# Cache


def test_cache_returns_the_same_bytes_without_rendering_again(contest, render_count):
    paper = first_paper(contest)
    first = render_paper(contest, paper)
    second = render_paper(contest, paper)
    assert (second, len(render_count)) == (first, 1)


def test_prune_pdf_cache_deletes_what_was_not_served_lately_and_a_hit_counts_as_served(
    contest, render_count, pdf_cache
):
    import os
    import time

    paper = first_paper(contest)
    render_paper(contest, paper)
    served = next(pdf_cache.glob("*/*.pdf"))
    old = pdf_cache / "ab" / ("ab" + "0" * 62 + ".pdf")
    leftover = pdf_cache / "ab" / ".tmp-crashed.pdf"
    for path in (old, leftover):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"%PDF-1.7 stale")
    forty_days_ago = time.time() - 40 * 86400
    for path in (served, old, leftover):
        os.utime(path, (forty_days_ago, forty_days_ago))
    render_paper(contest, paper)  # a cache hit: the file is served again, so it is kept
    assert len(render_count) == 1

    out = StringIO()
    call_command("prune_pdf_cache", "--days", "30", "--dry-run", stdout=out)
    assert out.getvalue().startswith("Would delete 2 cached printouts (0.0 MB) unused for 30 days")
    assert all(path.exists() for path in (served, old, leftover))
    out = StringIO()
    call_command("prune_pdf_cache", "--days", "30", stdout=out)
    assert out.getvalue().startswith("Deleted 2 cached printouts")
    assert (served.exists(), old.exists(), leftover.exists()) == (True, False, False)
    call_command("prune_pdf_cache", "--days", "0", stdout=StringIO())
    assert list(pdf_cache.glob("*/*.pdf")) == []
    render_paper(contest, paper)
    assert len(render_count) == 2
    with pytest.raises(CommandError, match="--days must be 0 or more"):
        call_command("prune_pdf_cache", "--days", "-1")


def test_a_changed_solution_or_scheme_is_rendered_again(contest, render_count, tmp_path):
    paper = first_paper(contest)
    render_paper(contest, paper, criteria=True)
    Solution.objects.filter(paper=paper, task__problem__number=1).update(answers=["a cat", "fire"])
    changed = render_paper(contest, paper, criteria=True)
    Criterion.objects.filter(problem__contest=contest, problem__number=1, code="T1").update(
        title="Plural in -ri"
    )
    rescored = render_paper(contest, paper, criteria=True)

    assert len(render_count) == 3
    assert answer_rows(pdftotext(changed, tmp_path, layout=True)) == [("1", "a cat"), ("2", "fire")]
    marks = [line.split() for line in pdftotext(rescored, tmp_path, layout=True).splitlines()]
    assert [row for row in marks if row[:1] == ["T1"]] == [["T1", "Plural", "in", "-ri", "8"]]


# ---------------------------------------------------------------------------------------------
# Access and file names


def _urls(contest, label):
    return {
        "paper": reverse("paper_pdf", args=[contest.slug, 1, label]),
        "bundle": reverse("problem_pdf_bundle", args=[contest.slug, 1]),
        "zip": reverse("problem_pdf_zip", args=[contest.slug, 1]),
    }


def test_anonymous_visitors_are_sent_to_log_in(client, contest):
    label = label_of(contest, first_paper(contest))
    statuses = {}
    for name, url in _urls(contest, label).items():
        response = client.get(url)
        statuses[name] = (response.status_code, response["Location"])
    assert statuses == {
        name: (302, f"/accounts/login/?next={url}") for name, url in _urls(contest, label).items()
    }


def test_a_juror_of_another_group_gets_404(client, contest, outside_juror):
    label = label_of(contest, first_paper(contest))
    client.force_login(outside_juror)
    statuses = {name: client.get(url).status_code for name, url in _urls(contest, label).items()}
    assert statuses == {"paper": 404, "bundle": 404, "zip": 404}


def test_a_juror_gets_404_for_a_paper_outside_their_assignment(client, contest, dora):
    mine, other, _ = contest.papers.order_by("pk")
    client.force_login(dora)
    responses = [
        client.get(reverse("paper_pdf", args=["test", 1, label_of(contest, paper)]))
        for paper in (mine, other)
    ]
    assert [response.status_code for response in responses] == [200, 404]
    assert responses[0]["Content-Disposition"] == (
        f'attachment; filename="test-p1-{label_of(contest, mine)}.pdf"'
    )


def test_a_jurors_bundle_and_zip_hold_only_their_papers(client, contest, dora, tmp_path):
    mine = contest.papers.order_by("pk").first()
    label = label_of(contest, mine)
    client.force_login(dora)
    bundle = client.get(reverse("problem_pdf_bundle", args=["test", 1]))
    archive = client.get(reverse("problem_pdf_zip", args=["test", 1]))

    assert (bundle.status_code, bundle["Content-Disposition"]) == (
        200,
        'attachment; filename="test-p1-my-papers.pdf"',
    )
    assert re.findall(r"(\w{4}) · page (\d+) of (\d+)", pdftotext(bundle.content, tmp_path)) == [
        (label, "1", "1")
    ]
    assert (archive.status_code, archive["Content-Disposition"]) == (
        200,
        'attachment; filename="test-p1-my-papers.zip"',
    )
    assert zipfile.ZipFile(io.BytesIO(archive.content)).namelist() == [f"test-p1-{label}.pdf"]


@pytest.mark.parametrize("role", ["chair", "organizer"])
def test_chair_and_organizer_get_every_paper(client, contest, role, request, tmp_path):
    client.force_login(request.getfixturevalue(role))
    labels = sorted(label_of(contest, paper) for paper in contest.papers.all())
    paper = client.get(reverse("paper_pdf", args=["test", 1, labels[0]]))
    bundle = client.get(reverse("problem_pdf_bundle", args=["test", 1]))
    archive = client.get(reverse("problem_pdf_zip", args=["test", 1]))

    assert [paper.status_code, bundle.status_code, archive.status_code] == [200, 200, 200]
    assert bundle["Content-Disposition"] == 'attachment; filename="test-p1-all-papers.pdf"'
    footers = re.findall(r"(\w{4}) · page (\d+) of (\d+)", pdftotext(bundle.content, tmp_path))
    assert footers == [(label, "1", "1") for label in labels]
    assert archive["Content-Disposition"] == 'attachment; filename="test-p1-all-papers.zip"'
    names = zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
    assert names == [f"test-p1-{label}.pdf" for label in labels]


def test_a_paper_selected_for_the_jury_limits_the_chairs_bundle(client, chair, contest, tmp_path):
    selected = contest.papers.order_by("pk").last()
    selected.selected_for_jury = True
    selected.save()
    client.force_login(chair)
    bundle = client.get(reverse("problem_pdf_bundle", args=["test", 1]))
    footers = re.findall(r"(\w{4}) · page", pdftotext(bundle.content, tmp_path))
    assert footers == [label_of(contest, selected)]


def test_download_links_are_on_the_paper_page_and_the_jurors_home(client, contest, juror):
    label = label_of(contest, first_paper(contest))
    client.force_login(juror)
    home = client.get(reverse("home")).content.decode()
    page = client.get(reverse("paper_detail", args=["test", 1, label])).content.decode()
    urls = _urls(contest, label)
    assert [home.count(f'href="{urls["bundle"]}"'), home.count(f'href="{urls["zip"]}"')] == [1, 1]
    assert page.count(f'href="{urls["paper"]}"') == 1


def test_printing_a_problem_takes_a_fixed_number_of_queries(db, django_assert_num_queries):
    small = factories.make_contest("small", problems=1, papers=1)
    large = factories.make_contest("large", problems=1, papers=12)
    for contest, count in ((small, 1), (large, 12)):
        problem = contest.problems.select_related("contest").get()
        # The papers (with the contest's selection), the scanned pages of the human ones, the
        # tasks, the solutions and the criteria.
        with django_assert_num_queries(5):
            data = pdf_selectors.problem_print(problem=problem)
        assert len(data.papers) == count


# ---------------------------------------------------------------------------------------------
# Command


def test_render_papers_writes_one_file_per_paper_and_a_bundle(contest, tmp_path):
    out = tmp_path / "out"
    stdout = io.StringIO()
    call_command("render_papers", contest="test", out=str(out), bundle=True, jobs=2, stdout=stdout)

    expected = sorted(
        [
            f"test-p{n}-{label_of(contest, paper, n)}.pdf"
            for n in (1, 2)
            for paper in contest.papers.all()
        ]
        + ["test-p1-all-papers.pdf", "test-p2-all-papers.pdf"]
    )
    assert sorted(path.name for path in out.iterdir()) == expected
    assert (
        stdout.getvalue()
        .splitlines()[-1]
        .startswith(f"Wrote 8 PDFs to {out} for 2 problems: 8 rendered, 0 from the cache, in ")
    )
    assert pdfinfo((out / "test-p1-all-papers.pdf").read_bytes(), tmp_path)["Pages"] == "3"


def test_render_papers_for_one_juror_and_problem_uses_the_cache(contest, dora, tmp_path):
    mine = contest.papers.order_by("pk").first()
    render_paper(contest, mine)
    out = tmp_path / "out"
    stdout = io.StringIO()
    call_command(
        "render_papers", contest="test", problem=1, juror="dora", out=str(out), stdout=stdout
    )

    assert sorted(path.name for path in out.iterdir()) == [f"test-p1-{label_of(contest, mine)}.pdf"]
    assert stdout.getvalue().startswith(
        f"Wrote 1 PDF to {out} for 1 problem: 0 rendered, 1 from the cache, in "
    )


def test_render_papers_dry_run_writes_nothing(contest, tmp_path, pdf_cache):
    out = tmp_path / "out"
    stdout = io.StringIO()
    call_command("render_papers", contest="test", out=str(out), dry_run=True, stdout=stdout)
    assert (out.exists(), pdf_cache.exists()) == (False, False)
    assert stdout.getvalue().strip() == (
        f"Would write 6 PDFs to {out} for 2 problems; nothing was written."
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"contest": "nope"}, "There is no contest “nope”."),
        (
            {"contest": "test", "problem": 9},
            "Contest test has no problem 9; its problems are 1, 2.",
        ),
        ({"contest": "test", "juror": "zed"}, "There is no user “zed”."),
        (
            {"contest": "test", "juror": "charlie", "problem": 1},
            "charlie has no papers assigned in contest test, problem 1.",
        ),
        ({"contest": "test", "jobs": 0}, "--jobs must be at least 1, not 0."),
    ],
)
def test_render_papers_refuses_bad_input_with_a_sentence(contest, tmp_path, options, message):
    with pytest.raises(CommandError) as error:
        call_command("render_papers", out=str(tmp_path / "out"), **options)
    assert str(error.value) == message


def test_an_answer_of_one_very_long_word_prints_whole(client, contest, juror, tmp_path):
    # WeasyPrint's automatic table layout took minutes on such a cell; the fixed layout wraps it.
    word = "kpâpî" * 2000
    paper = first_paper(contest)
    Solution.objects.filter(paper=paper, task__problem__number=1).update(answers=[word, "water"])
    client.force_login(juror)
    response = client.get(reverse("paper_pdf", args=[contest.slug, 1, label_of(contest, paper)]))
    assert response.status_code == 200
    text = pdftotext(response.content, tmp_path)
    # The word wraps over lines and pages; its pieces are the lines made only of its letters.
    pieces = "".join(line for line in text.splitlines() if line and set(line) <= set("kpâî"))
    assert pieces == word


def test_the_files_with_marking_pages_are_named_apart_from_the_plain_ones(client, contest, dora):
    """Issue 31, finding 17: the PDF with a marking page downloaded under the plain PDF's name,
    so the second download replaced (or was renamed beside) the first."""
    label = label_of(contest, contest.papers.order_by("pk").first())
    client.force_login(dora)
    names = {}
    for marking in ("", "1"):
        query = f"?criteria={marking}" if marking else ""
        for name, args in (
            ("paper_pdf", ["test", 1, label]),
            ("problem_pdf_bundle", ["test", 1]),
            ("problem_pdf_zip", ["test", 1]),
        ):
            response = client.get(reverse(name, args=args) + query)
            names[name, bool(marking)] = response["Content-Disposition"]
    assert names == {
        ("paper_pdf", False): f'attachment; filename="test-p1-{label}.pdf"',
        ("problem_pdf_bundle", False): 'attachment; filename="test-p1-my-papers.pdf"',
        ("problem_pdf_zip", False): 'attachment; filename="test-p1-my-papers.zip"',
        ("paper_pdf", True): f'attachment; filename="test-p1-{label}-with-marking-pages.pdf"',
        ("problem_pdf_bundle", True): (
            'attachment; filename="test-p1-my-papers-with-marking-pages.pdf"'
        ),
        (
            "problem_pdf_zip",
            True,
        ): 'attachment; filename="test-p1-my-papers-with-marking-pages.zip"',
    }
