"""Provisional results and an appeal, in the browser, from publishing to the final medals: the
organizer publishes; lena (EST's leader) appeals two criteria of contestant est-2's P3; liam
(LAT's leader) cannot reach that page; alice, who marked the paper, cannot decide it, and asks
lena a question that lena reads as the jury's and answers; erin, a juror of the group who did
not mark it, reads the answer and upholds A1 and rejects T1; once the deadline has passed
the chair finalizes; est-2's total, rank and medal change, and lena's inbox has the decision.

The contest (tests/grading/appeals/provisional.py): est-2 has 8 + 4 in each of P1 and P3 and
6 + 4 in P2, 34 of 60, 56.67 out of 100, an honourable mention, third among the humans;
est-1 has 63.33 (silver). Upholding A1 (8 → 12) gives est-2 38 of 60: 63.33, silver, tied
second."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from rubrics.models import Contest
from tests.grading import scenario as shared
from tests.grading.appeals import provisional

pytestmark = pytest.mark.browser


@pytest.fixture
def resolving(db, settings):
    settings.PASSWORD_HASHERS = shared.FAST_HASHERS
    return provisional.build(publish=False, problems=3)


def test_a_leaders_appeal_from_provisional_results_to_the_final_medals(
    sign_in, live_server, resolving
):
    users, papers = resolving["users"], resolving["papers"]
    code = papers["est-2"].public_code
    url = live_server.url

    # The organizer publishes the provisional results, with the appeals deadline.
    olga = sign_in(users["olga"])
    olga.goto(f"{url}{reverse('console:life', args=['iol'])}")
    olga.get_by_role("link", name="Publish provisional results…").click()
    olga.get_by_label("Appeals deadline").fill("2099-07-25T18:00")
    olga.get_by_label("I understand that the team leaders will see").check()
    olga.get_by_role("button", name="Publish provisional results").click()
    assert olga.locator(".messages li").inner_text() == (
        "The provisional results are published: team leaders may appeal until the deadline."
    )
    assert (
        olga.locator("#deadline")
        .inner_text()
        .startswith("Team leaders may appeal until 2099-07-25 18:00")
    )

    # lena appeals A1 and T1 of est-2's P3.
    lena = sign_in(users["lena"])
    lena.goto(f"{url}{reverse('appeal_file', args=['iol', code, 3])}")
    assert lena.locator("#appeal-criteria tbody").inner_text().split("\n") == [
        "\tA1: assignment A1\t\t8 / 12",
        "\tT1: theory T1\t\t4 / 8",
    ]
    lena.get_by_label("A1: assignment A1").check()
    lena.get_by_label("T1: theory T1").check()
    lena.get_by_label("Your argument").fill("Item 2 is a correct translation; the rule is stated.")
    lena.get_by_role("button", name="File the appeal").click()
    lena.wait_for_url(f"{url}{reverse('appeals_mine', args=['iol'])}")
    assert lena.locator("#my-appeals tbody td.state").inner_text() == "Open"

    # liam leads another delegation: the page is not there for him.
    liam = sign_in(users["liam"])
    response = liam.goto(f"{url}{reverse('appeal_file', args=['iol', code, 3])}")
    assert response.status == 404

    # alice marked est-2's P3: she reads the appeal and may not decide it.
    alice = sign_in(users["alice"])
    alice.goto(f"{url}{reverse('appeal_queue', args=['iol'])}?problem=3")
    alice.locator("#queue-P3 tbody a").click()
    assert alice.locator("#why-not-decide").inner_text() == (
        "You marked this paper for P3: you may comment, and another juror of the group or the "
        "chair decides the appeal."
    )
    expect(alice.locator("#appeal-decide-form")).to_have_count(0)

    # alice asks lena a question before anyone decides; lena reads it as the jury's.
    alice.get_by_label("Question to the team leader").fill("Which form of the plural do you mean?")
    alice.get_by_role("button", name="Ask the team leader").click()
    assert alice.locator(".messages li").inner_text() == (
        "Your question is sent to the team leader, from the jury."
    )
    lena.goto(f"{url}{reverse('inbox')}")
    expect(lena.locator("#notifications .headline")).to_have_text(
        "The jury asks a question on your appeal on P3 for contestant est-2; answer it on the "
        "appeal's page."
    )
    lena.goto(f"{url}{reverse('appeals_mine', args=['iol'])}")
    lena.locator("#my-appeals tbody a").click()
    question = lena.locator("#appeal-thread li.event-question")
    expect(question).to_contain_text("The jury asks")
    expect(question).to_contain_text("Which form of the plural do you mean?")
    assert "alice" not in lena.locator("main").inner_text()
    lena.get_by_label("Your answer to the jury").fill("The plural in -ir, item 2.")
    lena.get_by_role("button", name="Send the answer").click()
    assert lena.locator(".messages li").inner_text() == "Your answer is sent to the jury."
    expect(lena.locator("#appeal-thread li.event-answer")).to_contain_text(
        "The plural in -ir, item 2."
    )

    # erin, of P3's group, did not mark it: she upholds A1 and rejects T1.
    erin = sign_in(users["erin"])
    erin.goto(f"{url}{reverse('appeal_queue', args=['iol'])}?problem=3")
    erin.locator("#queue-P3 tbody a").click()
    answer = erin.locator("#appeal-events li", has_text="The plural in -ir, item 2.")
    expect(answer).to_contain_text("The team leader's answer · the team leader")
    assert "lena" not in erin.locator("main").inner_text()
    erin.get_by_label("A1: new points").fill("12")
    erin.get_by_label("Reason (the leader reads it)").fill(
        "Item 2 is right; T1's rule is still not stated."
    )
    erin.get_by_role("button", name="Decide").click()
    assert erin.locator(".messages li").inner_text() == "The appeal is decided; the leader is told."
    assert erin.locator("h1 small").inner_text() == "Decided: partly upheld"

    # The deadline passes (the clock, written to the contest: extensions only move it later),
    # and the chair finalizes.
    provisional.deadline_passes(Contest.objects.get(slug="iol"))
    chen = sign_in(users["chen"])
    chen.goto(f"{url}{reverse('console:life_step', args=['iol', 'finalize'])}")
    chen.get_by_label("I understand that the identities will be revealed").check()
    chen.get_by_role("button", name="Finalize and reveal the identities").click()
    chen.wait_for_url(f"{url}{reverse('reveal', args=['iol'])}")

    chen.goto(f"{url}{reverse('results', args=['iol'])}")
    row = chen.locator(f"#result-{code}")
    assert row.locator(".total").inner_text() == "63.33"
    assert row.locator(".medal").inner_text() == "silver"
    assert row.locator(".provisional-total").inner_text() == "56.67"
    assert row.locator(".provisional-medal").inner_text() == "honourable mention"
    assert row.locator(".provisional-rank").inner_text() == "3"
    assert row.locator("td.num").nth(4).inner_text() == "2"  # the human rank, now tied second
    assert row.locator(".appeal-changes").inner_text() == "P3 A1 8 → 12, partly upheld"

    # lena's inbox has the decision, criterion by criterion.
    lena.goto(f"{url}{reverse('inbox')}")
    decision = lena.locator("#notifications .headline", has_text="is partly upheld")
    assert decision.inner_text() == (
        "Your appeal on P3 for contestant est-2 is partly upheld (A1 8 → 12, T1 stays 4): "
        "Item 2 is right; T1's rule is still not stated."
    )
