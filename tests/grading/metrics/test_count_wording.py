"""Choosing papers for jury grading words its counts in the singular for one paper and the
plural otherwise: the organizer's confirmation and the refusal of papers of another contest."""

import pytest
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.urls import reverse

from grading.metrics.jury_selection import papers_select_for_jury
from tests import factories


@pytest.mark.parametrize(
    ("count", "sentence"),
    [
        (
            1,
            "1 AI paper selected for jury grading; jurors will be assigned only selected AI "
            "papers and every contestant's paper.",
        ),
        (
            2,
            "2 AI papers selected for jury grading; jurors will be assigned only selected AI "
            "papers and every contestant's paper.",
        ),
    ],
)
def test_the_organizer_is_told_how_many_papers_were_selected(client, organizer, count, sentence):
    contest = factories.make_contest("ai", problems=1, papers=2)
    chosen = [str(pk) for pk in contest.papers.order_by("pk").values_list("pk", flat=True)]
    client.force_login(organizer)
    response = client.post(
        reverse("autoscore_ranking", kwargs={"contest": contest.slug}),
        {"selected": chosen[:count]},
    )
    assert [str(message) for message in get_messages(response.wsgi_request)] == [sentence]


def test_papers_of_another_contest_are_named_in_the_plural(db):
    contest = factories.make_contest("ai", problems=1, papers=1)
    other = factories.make_contest("other", problems=1, papers=2)
    strangers = list(other.papers.order_by("pk").values_list("pk", flat=True))
    with pytest.raises(ValidationError) as error:
        papers_select_for_jury(contest=contest, paper_ids=strangers)
    assert error.value.messages == [
        f"Papers #{strangers[0]}, #{strangers[1]} are not in contest ai; nothing was changed."
    ]
