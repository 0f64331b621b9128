"""Language help in Chromium, end to end: a juror asks for help on a paper from the sheet with
the keyboard, the organizer gives the question to a language specialist from the help queue,
the specialist signs in through the link of their slip, reads the paper's pages and answers,
and the juror reads the answer in the sheet; axe-core on each new page."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from grading.console.people import sign_in_path
from grading.console.specialists import specialists_add
from grading.models import Paper, PaperLabel
from tests import factories
from tests.grading.scan_pages import add_human_papers

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
RUN_AXE = """async () => (await axe.run(document, {resultTypes: ['violations']}))
  .violations.map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)"""
QUESTION = "Line 3 of task 1: is “mari” a plural here?"
ANSWER = "Yes: “mari” is the plural of “mar”, 'the dogs'."


@pytest.fixture
def world(db, settings, tmp_path, juror, organizer):
    settings.SCANS_DIR = tmp_path / "scans"
    contest = factories.make_contest("help", problems=1, identities=["placeholder"])
    Paper.objects.filter(contest=contest).delete()
    add_human_papers(contest, ["C-2001", "C-2002"], pages=2)
    Paper.objects.filter(contest=contest).update(answer_language="Tagalog")
    factories.assign(contest, [juror])
    (sara,) = specialists_add(
        contest=contest, text="Sara Reyes, sara, , Tagalog\n", actor=organizer
    )
    first = PaperLabel.objects.filter(problem__contest=contest).order_by("label").first()
    return {"contest": contest, "sara": sara, "label": first.label}


def _signed_in(browser, live_server, user):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", factories.PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page


def _axe(page) -> list[str]:
    page.evaluate(AXE.read_text(encoding="utf-8"))
    return page.evaluate(RUN_AXE)


def test_a_juror_asks_a_specialist_answers_and_the_juror_reads_the_answer(
    browser, live_server, world, juror, organizer
):
    label, sheet = world["label"], f"{live_server.url}/contests/help/p1/sheet/"

    # The juror asks from the sheet, with the keyboard only.
    alice = _signed_in(browser, live_server, juror)
    alice.goto(f"{sheet}?row={label}")
    summary = alice.locator(f"#help-{label} summary")
    expect(summary).to_have_text(f"Ask for help on paper {label}")
    summary.focus()
    alice.keyboard.press("Enter")
    alice.keyboard.press("Tab")
    expect(alice.locator(f"#help-question-{label}")).to_be_focused()
    alice.keyboard.type(QUESTION)
    alice.keyboard.press("Tab")
    alice.keyboard.press("Enter")
    alice.wait_for_url(f"{sheet}?row={label}#help-{label}")
    expect(alice.locator(".messages")).to_contain_text(f"Your question on paper {label} is sent")
    expect(alice.locator(f"#help-{label} .help-request")).to_contain_text("waiting for a helper")
    assert _axe(alice) == []

    # The organizer gives it to the specialist who reads Tagalog, listed first.
    olga = _signed_in(browser, live_server, organizer)
    olga.goto(f"{live_server.url}/contests/help/help/")
    expect(olga.locator("#help-queue .question")).to_have_text(QUESTION)
    assert _axe(olga) == []
    select = olga.locator("#help-queue select")
    assert select.locator("optgroup").first.get_attribute("label") == "Read Tagalog"
    select.select_option("sara")
    olga.click("#help-queue button[type=submit]")
    expect(olga.locator(".messages")).to_contain_text(f"sara helps on P1 paper {label}")

    # The specialist signs in through the slip's link and reads the paper's pages.
    link = f"{live_server.url}{sign_in_path(world['sara'])}"
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    sara = context.new_page()
    sara.set_default_timeout(10_000)
    sara.goto(link)
    sara.fill("#id_new_password1", "lantern-kettle-39")
    sara.fill("#id_new_password2", "lantern-kettle-39")
    sara.click("#sign-in-form button[type=submit]")
    sara.wait_for_url(f"{live_server.url}/")
    sara.click("a.help-link")
    assert _axe(sara) == []
    sara.click(f"#help-mine a:has-text('P1 paper {label}')")
    expect(sara.locator("#question .question")).to_have_text(QUESTION)
    images = sara.locator(".scan-page img")
    expect(images).to_have_count(2)
    # The first page's image is there once it has loaded: decode() waits for it (a loaded CI
    # run read `complete` before the image had come) and fails if it cannot load.
    assert images.first.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0
    assert _axe(sara) == []
    sara.fill("#id_answer", ANSWER)
    sara.click("#answer button[type=submit]")
    expect(sara.locator(".messages")).to_contain_text("Your answer is saved")

    # The juror reads the answer in the sheet.
    alice.goto(f"{sheet}?row={label}")
    expect(alice.locator(f"#help-{label} .help-answer")).to_have_text(ANSWER)
    for page in (alice, olga, sara):
        page.context.close()
