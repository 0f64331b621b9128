"""The automatic metrics rank AI papers only: a human contestant's answers are on scanned
pages, so scoring their (empty) solutions would list every contestant last with 0.00 in red.
Choosing papers for the jury is a choice among AI papers: every contestant's paper is graded."""

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from grading.assigning.facts import papers_to_assign
from grading.metrics import autoscore
from grading.metrics.jury_selection import papers_select_for_jury
from grading.models import Paper, Solution
from grading.printing.selectors import problem_print
from tests import factories


@pytest.fixture
def mixed(db):
    contest = factories.make_contest(
        "mixed", problems=1, identities=["Team Orca", "Team Weak", "C-0417", "C-0582"]
    )
    humans = list(contest.papers.filter(identity__startswith="C-"))
    factories.make_delegation(contest, "EST", papers=humans)
    # A scanned paper's solutions hold nothing: its answers are on its pages.
    Solution.objects.filter(paper__in=humans).update(answers=[], raw="")
    return contest


def test_the_ranking_lists_the_ai_papers_and_no_human_contestant(mixed):
    results = autoscore.contest_autoscore(contest=mixed)
    assert sorted(r.identity for r in results) == ["Team Orca", "Team Weak"]


def test_the_ranking_page_shows_no_human_contestant(client, organizer, mixed):
    client.force_login(organizer)
    response = client.get(reverse("autoscore_ranking", kwargs={"contest": mixed.slug}))
    page = response.content.decode()
    assert ([r.identity for r in response.context["results"]], page.count("C-0")) == (
        ["Team Orca", "Team Weak"],
        0,
    )


def test_the_commands_csv_has_one_row_per_ai_paper(mixed, tmp_path):
    path = tmp_path / "scores.csv"
    call_command("autoscore", "--contest", mixed.slug, "--csv", str(path), verbosity=0)
    rows = path.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 2


def test_selecting_ai_papers_keeps_every_contestants_paper_for_the_jury(mixed):
    orca = mixed.papers.get(identity="Team Orca")
    assert papers_select_for_jury(contest=mixed, paper_ids=[orca.pk]) == 1
    assigned = sorted(paper.identity for paper in papers_to_assign(mixed))
    assert assigned == ["C-0417", "C-0582", "Team Orca"]
    problem = mixed.problems.get()
    printed = problem_print(problem=problem)
    assert len(printed.papers) == 3


def test_a_human_paper_is_no_choice_and_naming_one_changes_nothing(mixed):
    human = mixed.papers.get(identity="C-0417")
    orca = mixed.papers.get(identity="Team Orca")
    with pytest.raises(ValidationError) as refused:
        papers_select_for_jury(contest=mixed, paper_ids=[orca.pk, human.pk])
    assert refused.value.messages == [
        f"Paper #{human.pk} is a human contestant's: every contestant's paper goes to the jury, "
        "and only AI papers are chosen; nothing was changed."
    ]
    assert Paper.objects.filter(contest=mixed, selected_for_jury=True).count() == 0


def test_a_final_contests_ranking_offers_no_selection_to_save(client, organizer, mixed):
    """Issue 31, finding 17: the final ranking still offered "Save the selection for jury
    grading", which the service then refused."""
    client.force_login(organizer)
    url = reverse("autoscore_ranking", kwargs={"contest": mixed.slug})
    assert "Save the selection for jury grading" in client.get(url).content.decode()
    mixed.state = mixed.State.FINAL
    mixed.save(update_fields=["state"])
    page = client.get(url).content.decode()
    assert "Save the selection for jury grading" not in page
    assert 'name="selected"' not in page
    assert f"{mixed.name} is final: the selection for jury grading stays as it was." in page
