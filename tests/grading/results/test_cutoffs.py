"""Contest settings and medal cut-offs: the service, and `manage.py set_cutoffs`, which calls it."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from grading.results.cutoffs import contest_create, contest_update, cutoffs_set
from grading.rules.refusals import ContestFinal, NotAllowed
from rubrics.models import Contest, MedalCutoff


@pytest.fixture
def contest(db):
    """A contest without cut-offs yet (the shared fixture's has IOL 2026's)."""
    return Contest.objects.create(slug="test", name="Contest test")


def _cutoffs(contest):
    return [(c.name, c.min_total, c.order) for c in MedalCutoff.objects.filter(contest=contest)]


def test_an_organizer_creates_a_contest_in_set_up(organizer):
    contest = contest_create(
        slug="iol2026", name=" IOL 2026 ", max_total=Decimal("100"), actor=organizer
    )
    assert (contest.slug, contest.name, contest.max_total, contest.state) == (
        "iol2026",
        "IOL 2026",
        Decimal("100"),
        Contest.State.SETUP,
    )


def test_creating_a_contest_reports_every_problem_and_writes_nothing(organizer):
    contest_create(slug="iol", name="IOL", max_total=Decimal("100"), actor=organizer)
    with pytest.raises(ValidationError) as caught:
        contest_create(slug="iol", name=" ", max_total=Decimal("0"), actor=organizer)
    assert caught.value.messages == [
        "A contest with the short name “iol” already exists; choose another.",
        "Give the contest a name; jurors and the chair see it on every page.",
        "The maximum total must be more than 0, not 0.",
    ]
    with pytest.raises(ValidationError) as caught:
        contest_create(slug="iol 2026", name="IOL", max_total=Decimal("100"), actor=organizer)
    assert caught.value.messages == [
        "The short name “iol 2026” may hold only letters, digits, hyphens and underscores."
    ]
    assert list(Contest.objects.values_list("slug", flat=True)) == ["iol"]


def test_a_juror_or_the_chair_cannot_create_a_contest(juror, chair):
    for user in (juror, chair):
        with pytest.raises(NotAllowed):
            contest_create(slug="x", name="X", max_total=Decimal("100"), actor=user)
    assert Contest.objects.count() == 0


def test_any_subset_of_medals_gets_cut_offs_and_the_others_stay(organizer, contest):
    cutoffs_set(
        contest=contest,
        cutoffs={"gold": Decimal("70"), "silver": Decimal("58.4"), "hm": Decimal("35.3")},
        actor=organizer,
    )
    assert _cutoffs(contest) == [
        ("gold", Decimal("70.00"), 1),
        ("silver", Decimal("58.40"), 2),
        ("honourable mention", Decimal("35.30"), 4),
    ]
    cutoffs_set(contest=contest, cutoffs={"silver": None, "bronze": Decimal("50")}, actor=organizer)
    assert _cutoffs(contest) == [
        ("gold", Decimal("70.00"), 1),
        ("bronze", Decimal("50.00"), 3),
        ("honourable mention", Decimal("35.30"), 4),
    ]


def test_cut_offs_out_of_order_or_above_the_maximum_are_refused_and_nothing_changes(
    organizer, contest
):
    cutoffs_set(contest=contest, cutoffs={"gold": Decimal("70")}, actor=organizer)
    with pytest.raises(ValidationError) as caught:
        contest_update(
            contest=contest,
            actor=organizer,
            name="Renamed",
            max_total=Decimal("60"),
            cutoffs={"silver": Decimal("58.4"), "bronze": Decimal("58.4"), "hm": Decimal("-1")},
        )
    assert caught.value.messages == [
        "The gold cut-off 70 is above the contest's maximum total of 60.",
        "The honourable mention cut-off must be 0 or more, not -1.",
        "The silver cut-off (58.4) must be higher than the bronze cut-off (58.4).",
    ]
    contest.refresh_from_db()
    assert (contest.name, contest.max_total) == ("Contest test", Decimal("100.00"))
    assert _cutoffs(contest) == [("gold", Decimal("70.00"), 1)]


def test_name_maximum_and_cut_offs_are_read_only_once_the_contest_is_final(organizer, contest):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    with pytest.raises(ContestFinal) as caught:
        contest_update(contest=contest, actor=organizer, cutoffs={"gold": Decimal("70")})
    assert caught.value.messages == [
        "Contest test is final: its name, maximum and medal cut-offs are read-only. An "
        "organizer can reopen it, with a reason, from its results page."
    ]
    assert _cutoffs(contest) == []


def test_set_cutoffs_command_sets_the_named_medals(contest, capsys):
    call_command("set_cutoffs", contest.slug, "gold=70", "silver=58,4", "hm=35.3")
    assert _cutoffs(contest) == [
        ("gold", Decimal("70.00"), 1),
        ("silver", Decimal("58.40"), 2),
        ("honourable mention", Decimal("35.30"), 4),
    ]
    assert capsys.readouterr().out == (
        "Contest test: gold ≥ 70, silver ≥ 58.4, honourable mention ≥ 35.3.\n"
    )
    call_command("set_cutoffs", contest.slug, "silver=none", verbosity=0)
    assert [name for name, _, _ in _cutoffs(contest)] == ["gold", "honourable mention"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["nope", "gold=70"], "There is no contest “nope”."),
        (
            ["test", "platinum=90", "gold"],
            "“platinum” is not a medal; the medals are gold, "
            "silver, bronze, hm. “gold” is not MEDAL=TOTAL, e.g. gold=70.",
        ),
        (["test", "gold=lots"], "The gold cut-off: “lots” is not a number of points."),
        (["test", "gold=1", "gold=2"], "The gold cut-off is given twice."),
        (
            ["test", "gold=50", "silver=60"],
            "The gold cut-off (50) must be higher than the silver cut-off (60).",
        ),
        (["test", "gold=150"], "The gold cut-off 150 is above the contest's maximum total of 100."),
    ],
)
def test_set_cutoffs_command_refuses_with_a_sentence_and_changes_nothing(
    contest, arguments, message
):
    with pytest.raises(CommandError) as caught:
        call_command("set_cutoffs", *arguments)
    assert str(caught.value) == message
    assert _cutoffs(contest) == []


def test_set_cutoffs_command_refuses_a_final_contest(contest):
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    with pytest.raises(CommandError) as caught:
        call_command("set_cutoffs", contest.slug, "gold=70")
    assert str(caught.value).startswith("Contest test is final: its name, maximum and medal")
    assert _cutoffs(contest) == []
