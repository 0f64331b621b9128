"""Waiting for what a test reads next, never for a guessed time.

Some of what tests wait on has no event to wait for from here: another process's port opening,
a grandchild process ending, a line in a log, a lock another connection waits on. `until` asks
for it again and again until it comes or a deadline passes, and gives back the last answer, so
that the test's own assertion says what did not come. The deadline is generous (a loaded
machine is slow); it is never what the test relies on for a pass."""

import time
from collections.abc import Callable

# How often to ask again: often enough to add no noticeable time to a test, seldom enough that
# asking (a query, a /proc read, a connection) does not load the machine it is waiting on.
ASK_EVERY_SECONDS = 0.05


def until[T](condition: Callable[[], T], seconds: float, *, every: float = ASK_EVERY_SECONDS) -> T:
    """`condition()`'s first true answer, or its answer at the deadline, `seconds` from now."""
    deadline = time.monotonic() + seconds
    while True:
        answer = condition()
        if answer or time.monotonic() >= deadline:
            return answer
        time.sleep(every)
