import pytest

pytestmark = pytest.mark.browser


def test_juror_logs_in_and_sees_the_labels_of_their_papers_only(
    log_in, live_server, contest, juror
):
    page = log_in(juror)
    cards = page.locator("article.card")
    assert cards.count() == 1
    assert cards.first.locator("h3").inner_text() == "Contest test · P1: Problem 1"
    expected = sorted(contest.problems.get(number=1).paper_labels.values_list("label", flat=True))
    assert cards.first.locator("a.label").all_inner_texts() == expected
    page.click("a.label >> nth=0")
    assert page.locator("h1").inner_text().startswith(f"Paper {expected[0]}")
    assert "Team " not in page.content()
