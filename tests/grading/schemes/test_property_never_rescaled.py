"""A property of amendments: whatever the scheme's amendments and the jurors' marks between
them, an amendment never changes a stored mark. Every mark's points after a run are its points
before, unless its own juror changed them (a MarkEvent by the sheet's juror), and then they are
what that juror last gave; every event of another actor (the amendment's) keeps the points."""

import contextlib
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from grading.marking.sheets import sheet_cell_set
from grading.models import Mark, MarkEvent
from grading.schemes.amend import scheme_amend
from tests.fuzz import fuzz_settings, rolled_back
from tests.grading import scenario

pytestmark = pytest.mark.django_db

amendments = st.fixed_dictionaries(
    {
        "a1": st.sampled_from(["6", "8", "10", "11", "12", "13.5", "14"]),
        "step": st.sampled_from(["0.5", "1", "2"]),
        "tolerance": st.sampled_from(["0", "0.5", "1"]),
        "guidance": st.sampled_from(["", "Accept the plural.", "Rule stated."]),
    }
).map(lambda a: ("amend", a))
juror_saves = st.tuples(
    st.just("save"),
    st.sampled_from(["alice", "bob", "dan"]),
    st.integers(min_value=0, max_value=5),
    st.sampled_from(["0", "2", "4", "8", "9", "11", "12"]),
)


@pytest.fixture
def graded():
    return scenario.build()


def _amend(graded, a) -> None:
    a1 = Decimal(a["a1"])
    changes = {
        "A1": {"points": a["a1"], "step": a["step"], "guidance": a["guidance"]},
        "T1": {"points": str(20 - a1), "tolerance": a["tolerance"]},
    }
    before = sorted(Mark.objects.values_list("pk", "points"))
    with contextlib.suppress(ValidationError):
        scheme_amend(graded["problems"][1], changes=changes, reason="Fuzz.", actor=graded["chair"])
    # The amendment itself, made or refused, leaves every mark's points as they were.
    assert sorted(Mark.objects.values_list("pk", "points")) == before


def _save(graded, name, index, points) -> None:
    juror = graded["users"][name]
    marks = list(
        Mark.objects.filter(sheet__juror=juror, sheet__problem__number=1)
        .select_related("sheet__problem__contest", "criterion")
        .order_by("pk")
    )
    mark = marks[index % len(marks)]
    mark.criterion.problem = mark.sheet.problem
    # Refused (a submitted mark not reopened, points off the new step): nothing written.
    with contextlib.suppress(ValidationError):
        sheet_cell_set(
            sheet=mark.sheet,
            mark=mark,
            points=Decimal(points),
            expected_version=mark.version,
            actor=juror,
        )


@fuzz_settings(max_examples=25)
@given(steps=st.lists(st.one_of(amendments, juror_saves), min_size=1, max_size=6))
def test_no_amendment_changes_a_stored_mark_without_its_juror(graded, steps):
    with rolled_back():
        start = dict(Mark.objects.values_list("pk", "points"))
        first_event = MarkEvent.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        for step in steps:
            if step[0] == "amend":
                _amend(graded, step[1])
            else:
                _save(graded, *step[1:])
        events = MarkEvent.objects.filter(pk__gt=first_event).order_by("pk")
        last_by_juror = {}
        for mark_id, actor_id, juror_id, old, new in events.values_list(
            "mark_id", "actor_id", "mark__sheet__juror_id", "old_points", "new_points"
        ):
            if actor_id == juror_id:
                last_by_juror[mark_id] = new
            else:
                assert old == new
        now = dict(Mark.objects.values_list("pk", "points"))
        assert now == {pk: last_by_juror.get(pk, points) for pk, points in start.items()}
