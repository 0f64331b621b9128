"""Child processes that die with the process that started them.

The task worker renders printouts in a pool of processes of its own (`grading.printing.pdf.render_jobs`).
A worker that stops must take them with it: left behind, each holds a few hundred megabytes and
the database files the worker had open (on SQLite, its deleted WAL files), and a supervisor that
starts a new worker would add a new pool beside them.

Two halves, for any pool (`ProcessPoolExecutor`, `multiprocessing.Pool`):

- `child_initializer`, passed as the pool's `initializer` (or called first by a pool's own
  initializer), makes a child die when its parent dies, however it dies (SIGKILL included), and
  makes it die on the first SIGTERM or SIGINT (a forked child inherits the worker's Python signal
  handlers, with which it ignored the first SIGTERM and needed a SIGKILL);
- `terminate_children`, called by the parent when it is told to stop, ends every descendant
  (SIGTERM, then SIGKILL for what is still there after a grace period) before the parent leaves.
  A pool shut down in the ordinary way would first finish every render it was given."""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from pathlib import Path

# From <linux/prctl.h>: the signal the kernel sends this process when its parent thread dies.
PR_SET_PDEATHSIG = 1


def child_initializer() -> None:
    """Run first in every pool child: die with the parent, and on the first stop signal."""
    for name in ("SIGTERM", "SIGINT", "SIGQUIT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if sys.platform == "linux":
        # The kernel's own guard: it fires even if this child is stuck in C code.
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    parent = multiprocessing.parent_process()
    if parent is not None:
        # Everywhere (and on Linux for a parent that died before the prctl above, or a child of
        # a fork server): the pipe to the parent closes when the parent dies, whatever its start
        # method. Waiting on it costs nothing while the parent lives.
        threading.Thread(target=_exit_when_gone, args=(parent,), daemon=True).start()


def _exit_when_gone(parent) -> None:
    parent.join()
    os._exit(1)


def descendants(pid: int | None = None) -> list[int]:
    """Every living process below `pid` (default: this one), read from /proc; [] elsewhere."""
    pid = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        # The command name is in parentheses and may hold spaces: the fields follow its end.
        state, ppid = text[text.rindex(")") + 2 :].split()[:2]
        if state != "Z":
            children.setdefault(int(ppid), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def terminate_children(*, grace: float = 3.0) -> list[int]:
    """End every descendant of this process: SIGTERM, then SIGKILL after `grace` seconds for
    those still there. Returns the pids it signalled."""
    pids = descendants()
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and set(pids) & set(descendants()):
        time.sleep(0.05)
    for pid in set(pids) & set(descendants()):
        _signal(pid, signal.SIGKILL)
    return pids


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
        os.kill(pid, signum)
