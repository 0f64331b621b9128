"""The chair's walk through the queue, one cell after another (the discussion page's "next in
the queue", its j/n and k/p keys, and "decide, then the next cell").

The queue re-sorts as the chair works: a decision moves its paper's total, and with it every
other cell of that paper nearer to or further from a cut-off. A walk that followed the queue's
order as it stands after each decision would skip the cells that moved behind the one just
decided and stop early. So a walk keeps the order the queue had when it started (a snapshot of
its cells, in the session under a short token that the walk's links carry) and goes to the
next cell of *that* order that is still in the queue; cells that enter the queue during the
walk (a revision that reopens one) are taken at its end, in the queue's order then. Each cell
of the queue is thus visited once, whatever the decisions do to the order. A walk begun in the
middle of the queue ends at its bottom, saying how many cells are still open above."""

import re
import secrets
from dataclasses import dataclass

# Walks kept per session: one per tab the chair walks in is plenty; older ones are dropped.
WALKS_KEPT = 4
SESSION_KEY = "queue_walks"
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,24}")


def cell_key(item) -> str:
    """A queue item's key in a walk: "<problem number>:<label>:<criterion code>", as the
    step's `at` names a cell (labels, never a database id)."""
    return f"{item.problem.number}:{item.label}:{item.cell.criterion.code}"


@dataclass(frozen=True)
class Step:
    # The key of the cell to go to, or None at either end of the walk.
    target: str | None
    # Cells of the queue still ahead of the target in the walk (or ahead of `at`, at the end).
    remaining: int
    # Cells still in the queue that the walk went past before `at` without their leaving it
    # (passed without a decision): what is left once the walk ends.
    passed: int


def walk_step(order: list[str], queue: list[str], at: str, *, backwards: bool = False):
    """The step from cell `at` along the walk `order` (its snapshot) with the queue as it is
    now (`queue`, its keys in order): (the order, extended by cells new to the queue when the
    walk reaches its end, and the step). `at` must be in `order`."""
    present = set(queue)
    position = order.index(at)
    if backwards:
        target = next((key for key in reversed(order[:position]) if key in present), None)
        return order, _step(order, present, target, position)
    target = next((key for key in order[position + 1 :] if key in present), None)
    if target is None:
        known = set(order)
        fresh = [key for key in queue if key not in known]
        if fresh:
            order = order + fresh
            target = fresh[0]
    return order, _step(order, present, target, position)


def _step(order: list[str], present: set[str], target: str | None, position: int) -> Step:
    where = order.index(target) if target is not None else position
    # Cells new to the queue come after the walk's own: they remain too.
    fresh = len(present - set(order))
    return Step(
        target=target,
        remaining=sum(key in present for key in order[where + 1 :]) + fresh,
        passed=sum(key in present for key in order[:position]),
    )


def walk_start(queue: list[str], at: str) -> list[str]:
    """A walk's order: the queue as it is now. A cell no longer in it (decided just before the
    first step) goes first, so that the walk goes on from the top of the queue."""
    return queue if at in queue else [at, *queue]


def walk_load(session, token: str, at: str) -> list[str] | None:
    """The walk `token`'s order in the session, if it exists and passes through `at`."""
    if not TOKEN.fullmatch(token or ""):
        return None
    order = session.get(SESSION_KEY, {}).get(token)
    return order if order and at in order else None


def walk_save(session, token: str | None, order: list[str]) -> str:
    """Store the walk's order under its token (a new one when None); the token."""
    walks = dict(session.get(SESSION_KEY, {}))
    token = token or secrets.token_urlsafe(6)
    walks.pop(token, None)
    walks[token] = order
    session[SESSION_KEY] = dict(list(walks.items())[-WALKS_KEPT:])
    return token
