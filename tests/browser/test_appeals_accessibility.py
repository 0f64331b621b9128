"""The appeals' pages in the accessibility check: axe-core, as `test_accessibility.py` runs it
(its `Audit`), on each page of the provisional-results phase as each role sees it, while an
appeal is open, once it is decided, and after finalizing."""

from decimal import Decimal

import pytest
from django.urls import reverse

from grading.appeals.appeals import appeal_decide, appeal_file
from grading.console.contest_life import contest_finalize
from tests.browser.test_accessibility import Audit
from tests.grading import scenario as shared
from tests.grading.appeals import provisional

pytestmark = pytest.mark.browser


@pytest.fixture
def appealed(db, settings):
    settings.PASSWORD_HASHERS = shared.FAST_HASHERS
    built = provisional.build()
    built["appeal"] = appeal_file(
        paper=built["papers"]["est-2"],
        problem=built["problems"][1],
        criteria=provisional.criteria(built, 1, "A1", "T1"),
        argument="Item 2 is a correct translation: <ng> is written as in the data.",
        actor=built["users"]["lena"],
    )
    return built


def _pages(built) -> dict[str, str]:
    code, pk = built["papers"]["est-2"].public_code, built["appeal"].pk
    return {
        "appeal file": reverse("appeal_file", args=["iol", code, 2]),
        "appeals mine": reverse("appeals_mine", args=["iol"]),
        "appeal queue": reverse("appeal_queue", args=["iol"]),
        "appeal": reverse("appeal", args=["iol", pk]),
        "life": reverse("console:life", args=["iol"]),
        "life provisional": reverse("console:life_step", args=["iol", "finalize"]),
        "results": reverse("results", args=["iol"]),
        "inbox": reverse("inbox"),
        "home": reverse("home"),
    }


def _advance(built, state: str) -> None:
    """The appeal decided by the juror who decides; then the deadline passes and the chair
    finalizes."""
    if state == "appeal open":
        return
    appeal_decide(
        appeal=built["appeal"],
        points={"A1": Decimal("12")},
        reason="Item 2 is right.",
        actor=built["users"]["erin"],
    )
    if state == "final":
        provisional.deadline_passes(built["contest"])
        contest_finalize(contest=built["contest"], actor=built["users"]["chen"])


ROLES = {
    "leader": "lena",
    "juror who marked": "alice",
    "juror who decides": "erin",
    "chair": "chen",
    "organizer": "olga",
}
STATES = ("appeal open", "appeal decided", "final")
# The check is not vacuous: each role met the appeals' pages it may see.
MET = {
    "leader · appeal open · appeal file (200)",
    "leader · appeal decided · appeals mine (200)",
    "juror who marked · appeal open · appeal (200)",
    "juror who decides · appeal open · appeal (200)",
    "juror who decides · appeal open · appeal queue (200)",
    "chair · final · results (200)",
    "organizer · appeal open · life (200)",
}


# One test a role in a state, so that pytest-xdist spreads them and a failure names both.
@pytest.mark.parametrize(
    ("state", "role"),
    [
        pytest.param(state, role, id=f"{role}-{state}".replace(" ", "-"))
        for state in STATES
        for role in ROLES
    ],
)
def test_the_appeals_pages_as_every_role_pass_axe_core(browser, live_server, appealed, state, role):
    _advance(appealed, state)
    audit = Audit(browser, live_server.url)
    try:
        audit.visit(role, appealed["users"][ROLES[role]], state, _pages(appealed))
    finally:
        audit.close()
    seen = [where for seen in audit.seen.values() for where in seen]
    # What was seen, for counting the pages audited (-s, or -rP under pytest-xdist).
    print("\n".join(seen))
    assert {where for where in MET if where.startswith(f"{role} · {state} · ")} <= set(seen)
    print("\n".join(audit.failures))
    assert audit.failures == []
