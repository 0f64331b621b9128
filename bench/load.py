"""Load: 40 jurors autosaving marks at once through gunicorn, on SQLite (WAL) and on PostgreSQL.

For each database: a throw-away database (a file in a temporary folder; a PostgreSQL cluster
started as scripts/postgres.sh starts it, skipped with a note when its binaries are missing) is
migrated and given a generated contest in which every juror has their own sheet of `--papers`
papers × 5 criteria. Gunicorn serves the application on 127.0.0.1 at a free port, with DEBUG off
(the production settings). Each simulated juror holds a logged-in session (made as Django's
`force_login` makes one: 40 deliberately slow password hashes would only time the set-up), loads
their sheet page for the CSRF token as a browser does, and then saves cells as sheet.js saves
them: a URL-encoded POST of `points` and `version` with the `X-CSRFToken` header, one request at
a time, each carrying the version the previous answer for that cell returned.

First one juror alone saves back to back (the single-user latency), then all jurors save at once,
each pausing a random 0–2×`--think` seconds between saves (the time to read and type; the default
of 0.5 s on average is faster than anyone grades). Both phases stop by themselves: after
`--seconds` or `--max-saves` saves per juror, whichever comes first. Then, straight from the
database: every acknowledged (2xx) save must be there with its value and exactly one MarkEvent
for its version, and no mark may have an event that no answer acknowledged.

A third phase repeats the second with the live pages' polling beside the saves: each juror also
keeps a page open that refreshes itself (static/grading/live.js), on a connection of its own,
asking for its inbox's change stamp every `--poll-interval` seconds (5, live.js's default) with
the ETag of its last answer, as the browser does (304 while nothing changed). The first poll of
each juror falls at a random point of the first interval, so polls spread as open tabs do.

Figures per database (`<db>` is sqlite or postgres):
- load_<db>_p95_vs_single_p50: the 95th-percentile save latency with all jurors, against the
  median latency of one juror alone on the same server. Goal <= 5x.
- load_<db>_lost_writes: acknowledged saves missing from the database or with another value.
- load_<db>_duplicated_writes: MarkEvents beyond one per acknowledged save.
- load_<db>_server_errors: 5xx answers and requests that got no answer at all.
- load_<db>_p95_polling_vs_not: the saves' p95 in the polling phase against the p95 of the
  phase without polling. Goal <= 1.2x (the live refresh costs the autosave at most 20 %).
Refused saves (409 stale version, 422 invalid value) are counted on the detail line; none is
expected, since every juror keeps to their own sheet and sends valid values.

Run: .venv/bin/python bench/load.py [--seconds 60] [--jurors 40] [--poll-interval 5] [--sqlite-only]
(prints: name  measured  goal  met/not met; details on stderr; exits 1 when a write was lost or
duplicated or the server failed, as those are bugs rather than slowness)."""

import argparse
import http.client
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CRITERIA = (
    ("A1", "assignment", "4"),
    ("A2", "assignment", "4"),
    ("A3", "assignment", "4"),
    ("T1", "theory", "4"),
    ("T2", "theory", "4"),
)
# Every value a cell may take (steps of 0.5 up to 4, and blank); each save picks one other than
# the cell's current value, so that every acknowledged save is a real write with its own event.
VALUES = [""] + [str(Decimal(step) / 2) for step in range(9)]
JURORS_PER_PROBLEM = 8
GOAL_RATIO = 5.0
GOAL_POLLING = 1.2
FORM = "application/x-www-form-urlencoded"
# The first saves of the single juror warm the worker up (lazy imports, URL resolver, the
# connection); they are checked like every other save but left out of the latency figures.
WARM_UP_SAVES = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="length of the load phase")
    parser.add_argument("--jurors", type=int, default=40)
    parser.add_argument("--papers", type=int, default=20, help="papers on each juror's sheet")
    parser.add_argument("--think", type=float, default=0.5, help="mean pause between saves, s")
    parser.add_argument("--max-saves", type=int, default=1000, help="per juror and phase")
    parser.add_argument("--single-saves", type=int, default=300, help="saves of the lone juror")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    parser.add_argument(
        "--poll-interval", type=float, default=5.0, help="seconds between a live page's polls"
    )
    # Internal: the set-up and the check run in a child process with the server's environment,
    # so that this process never imports Django and can serve both databases one after another.
    parser.add_argument("--setup", metavar="JSON", help=argparse.SUPPRESS)
    parser.add_argument("--verify", nargs=2, metavar=("ACKS", "JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setup:
        return setup(args, Path(args.setup))
    if args.verify:
        return verify(Path(args.verify[0]), Path(args.verify[1]))

    failed = False
    workdir = Path(tempfile.mkdtemp(prefix="jury-load-"))
    try:
        url = f"sqlite:///{workdir / 'load.sqlite3'}"
        failed |= run_backend("sqlite", url, args, workdir / "sqlite")
        if args.sqlite_only:
            note("PostgreSQL skipped (--sqlite-only).")
        else:
            cluster = Postgres.start()
            if cluster is None:
                note(
                    "PostgreSQL skipped: no initdb/pg_ctl found (Debian's postgresql package "
                    "provides them)."
                )
            else:
                try:
                    failed |= run_backend("postgres", cluster.url, args, workdir / "postgres")
                finally:
                    cluster.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    sys.exit(1 if failed else 0)


def note(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


# ---- one database -------------------------------------------------------------------------------


def server_env(database_url: str, static_root: Path) -> dict:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        # With DEBUG off, static files are served from collectstatic's output (set-up makes it).
        STATIC_ROOT=str(static_root),
        DJANGO_SETTINGS_MODULE="grading.settings",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        # Plain HTTP on the loopback: in production a TLS proxy sits in front.
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
    )
    return env


def run_backend(name: str, database_url: str, args, workdir: Path) -> bool:
    """Set up, serve, load, check and print the figures for one database; True when a write was
    lost or duplicated or the server failed."""
    workdir.mkdir(parents=True)
    env = server_env(database_url, workdir / "static")
    plan_file = workdir / "plan.json"
    child = [PYTHON, __file__, "--jurors", str(args.jurors), "--papers", str(args.papers)]
    subprocess.run([*child, "--setup", str(plan_file)], env=env, check=True, cwd=ROOT)
    plan = json.loads(plan_file.read_text())

    port = free_port()
    server = subprocess.Popen(
        [
            *(PYTHON, "-m", "gunicorn", "grading.wsgi:application"),
            *("--bind", f"127.0.0.1:{port}", "--workers", str(args.workers)),
            *("--threads", str(args.threads), "--worker-class", "gthread"),
            # Idle jurors keep their connection across the single-user phase.
            *("--keep-alive", "300", "--timeout", "60", "--log-level", "warning"),
        ],
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    jurors = [Juror(index, port, plan, spec) for index, spec in enumerate(plan["jurors"])]
    try:
        wait_until_serving(port, server)
        # Every juror opens their sheet before any timing: a browser does, it yields the CSRF
        # token, and it warms both worker processes.
        for juror in jurors:
            juror.open_sheet()

        lone = jurors[0]
        lone.run(
            until=time.monotonic() + max(1.0, min(args.seconds, 30.0)),
            max_saves=args.single_saves,
            think=0.0,
            rng=random.Random(0),
        )
        single = lone.latencies[WARM_UP_SAVES:] or lone.latencies
        single_p50 = statistics.median(single)
        single_count = len(lone.latencies)
        for juror in jurors:
            juror.latencies = []

        elapsed = load_phase(jurors, args, seed=1000, poll=False)
        quiet = [lat for juror in jurors for lat in juror.latencies]
        elapsed_polling = load_phase(jurors, args, seed=2000, poll=True)
    finally:
        for juror in jurors:
            juror.close()
        stop(server)

    polling = sorted(lat for juror in jurors for lat in juror.latencies)
    latencies = sorted(quiet)
    statuses: dict[int, int] = {}
    for juror in jurors:
        for status, count in juror.statuses.items():
            statuses[status] = statuses.get(status, 0) + count
    acks = [ack for juror in jurors for ack in juror.acks]
    acks_file = workdir / "acks.json"
    acks_file.write_text(json.dumps(acks))
    result_file = workdir / "result.json"
    subprocess.run(
        [PYTHON, __file__, "--verify", str(acks_file), str(result_file)],
        env=env,
        check=True,
        cwd=ROOT,
    )
    result = json.loads(result_file.read_text())

    p50 = percentile(latencies, 50)
    p95 = percentile(latencies, 95)
    server_errors = sum(c for s, c in statuses.items() if s >= 500) + sum(
        juror.transport_errors for juror in jurors
    )
    note(
        f"{name}: gunicorn {args.workers} workers × {args.threads} threads; single juror "
        f"p50 {single_p50 * 1000:.1f} ms ({single_count} saves); {len(jurors)} jurors for "
        f"{elapsed:.1f} s: {len(latencies)} saves ({len(latencies) / elapsed:.0f}/s), "
        f"p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms; answers in both phases "
        + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
        + f"; 409: {statuses.get(409, 0)}, 422: {statuses.get(422, 0)}; "
        f"{result['checked']} acknowledged saves checked against {result['events']} events"
    )
    polls = [lat for juror in jurors for lat in juror.poll_latencies]
    poll_statuses: dict[int, int] = {}
    for juror in jurors:
        for status, count in juror.poll_statuses.items():
            poll_statuses[status] = poll_statuses.get(status, 0) + count
    polling_p95 = percentile(polling, 95)
    note(
        f"{name}: with each juror polling every {args.poll_interval:g} s for "
        f"{elapsed_polling:.1f} s: {len(polling)} saves, p50 "
        f"{percentile(polling, 50) * 1000:.1f} ms, p95 {polling_p95 * 1000:.1f} ms; "
        f"{len(polls)} polls ({len(polls) / max(elapsed_polling, 1e-9):.1f}/s), p50 "
        f"{percentile(sorted(polls), 50) * 1000:.1f} ms, p95 "
        f"{percentile(sorted(polls), 95) * 1000:.1f} ms; answers "
        + ", ".join(f"{status}: {count}" for status, count in sorted(poll_statuses.items()))
    )
    server_errors += sum(c for s, c in poll_statuses.items() if s >= 500)
    ratio = p95 / single_p50
    polling_ratio = polling_p95 / p95
    lines = [
        (f"load_{name}_p95_vs_single_p50", f"{ratio:.1f}x", f"<={GOAL_RATIO:g}x", ratio <= 5),
        (f"load_{name}_lost_writes", result["lost"], "==0", result["lost"] == 0),
        (f"load_{name}_duplicated_writes", result["duplicated"], "==0", result["duplicated"] == 0),
        (f"load_{name}_server_errors", server_errors, "==0", server_errors == 0),
        (
            f"load_{name}_p95_polling_vs_not",
            f"{polling_ratio:.2f}x",
            f"<={GOAL_POLLING:g}x",
            polling_ratio <= GOAL_POLLING,
        ),
    ]
    for figure, measured, goal, met in lines:
        print(f"{figure}  {measured}  {goal}  {'met' if met else 'not met'}", flush=True)
    return bool(result["lost"] or result["duplicated"] or server_errors)


def load_phase(jurors: list, args, *, seed: int, poll: bool) -> float:
    """All jurors save at once (and, with `poll`, each also polls its live page) until
    `--seconds` have passed; the phase's length. Each juror's latencies start afresh."""
    for juror in jurors:
        juror.latencies = []
    deadline = time.monotonic() + args.seconds
    threads = [
        threading.Thread(
            target=juror.run,
            kwargs={
                "until": deadline,
                "max_saves": args.max_saves,
                "think": args.think,
                "rng": random.Random(seed + juror.index),
            },
        )
        for juror in jurors
    ]
    if poll:
        threads += [
            threading.Thread(
                target=juror.poll,
                kwargs={
                    "until": deadline,
                    "interval": args.poll_interval,
                    "rng": random.Random(seed + 500 + juror.index),
                },
            )
            for juror in jurors
        ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - started


def percentile(values: list[float], percent: int) -> float:
    """Nearest-rank percentile of sorted values."""
    if not values:
        return float("nan")
    rank = max(1, -(-len(values) * percent // 100))
    return values[rank - 1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with status {server.returncode} at start-up.")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/accounts/login/")
            if connection.getresponse().status == 200:
                connection.close()
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 60 seconds.")


def stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


# ---- a simulated juror --------------------------------------------------------------------------


@dataclass
class Juror:
    index: int
    port: int
    plan: dict
    spec: dict
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    # (mark id, version, points as sent) for every 2xx answer.
    acks: list[tuple[int, int, str]] = field(default_factory=list)
    transport_errors: int = 0
    poll_latencies: list[float] = field(default_factory=list)
    poll_statuses: dict[int, int] = field(default_factory=dict)

    def __post_init__(self):
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        # The live page's polls: another tab, on a connection of its own.
        self.poll_connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        self.cookies = {self.plan["session_cookie"]: self.spec["session"]}
        self.csrf = ""
        # Per cell: [mark id, version, current value as the server shows it].
        self.cells = {(label, code): [mark, 0, ""] for label, code, mark in self.spec["cells"]}
        self.order = list(self.cells)

    def request(self, method: str, path: str, body: str | None = None):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if body is not None:
            headers.update({"Content-Type": FORM, "X-CSRFToken": self.csrf})
            headers["Accept"] = "application/json"
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data

    def open_sheet(self) -> None:
        status, page = self.request(
            "GET", f"/contests/{self.plan['slug']}/p{self.spec['problem']}/sheet/"
        )
        found = re.search(rb'<meta name="csrf-token" content="([^"]+)"', page)
        if status != 200 or not found:
            raise SystemExit(f"Juror {self.index} could not open their sheet (HTTP {status}).")
        self.csrf = found.group(1).decode()

    def values_for(self, code: str) -> list[str]:
        """The points this juror may send to criterion `code` (every criterion of load.py's
        own contest takes the same)."""
        return VALUES

    def run(self, *, until: float, max_saves: int, think: float, rng: random.Random) -> None:
        base = f"/contests/{self.plan['slug']}/p{self.spec['problem']}/sheet/cells"
        rng.shuffle(self.order)
        for count in range(max_saves):
            if time.monotonic() >= until:
                return
            if think:
                time.sleep(min(rng.uniform(0, 2 * think), max(0.0, until - time.monotonic())))
                if time.monotonic() >= until:
                    return
            label, code = self.order[count % len(self.order)]
            cell = self.cells[(label, code)]
            points = rng.choice([value for value in self.values_for(code) if value != cell[2]])
            body = urlencode({"points": points, "version": cell[1]})
            started = time.perf_counter()
            try:
                status, data = self.request("POST", f"{base}/{label}/{code}/", body)
            except (OSError, http.client.HTTPException) as error:
                # Whether the server wrote it is unknown; the check counts any such write as
                # unacknowledged. This juror stops rather than guess the cell's version.
                self.transport_errors += 1
                note(f"juror {self.index}: no answer to a save ({error!r}); this juror stops.")
                return
            self.latencies.append(time.perf_counter() - started)
            self.statuses[status] = self.statuses.get(status, 0) + 1
            try:
                answer = json.loads(data)
            except ValueError:
                continue
            if 200 <= status < 300:
                self.acks.append((cell[0], answer["version"], points))
            if "version" in answer:
                # As sheet.js does after a save, and as a reload would after a refusal.
                cell[1], cell[2] = answer["version"], answer["points"]

    def poll(self, *, until: float, interval: float, rng: random.Random) -> None:
        """Ask for the inbox's change stamp every `interval` seconds, as live.js does, sending
        the last answer's ETag back (the browser's conditional request)."""
        etag = None
        next_poll = time.monotonic() + rng.uniform(0, interval)
        while True:
            time.sleep(max(0.0, min(next_poll, until) - time.monotonic()))
            if time.monotonic() >= until:
                return
            next_poll += interval
            headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
            if etag:
                headers["If-None-Match"] = etag
            started = time.perf_counter()
            try:
                self.poll_connection.request("GET", "/inbox/stamp/", headers=headers)
                response = self.poll_connection.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as error:
                self.transport_errors += 1
                note(f"juror {self.index}: no answer to a poll ({error!r}); its polling stops.")
                return
            self.poll_latencies.append(time.perf_counter() - started)
            self.poll_statuses[response.status] = self.poll_statuses.get(response.status, 0) + 1
            etag = response.getheader("ETag") or etag

    def close(self) -> None:
        self.connection.close()
        self.poll_connection.close()


# ---- the throw-away PostgreSQL cluster ---------------------------------------------------------


class Postgres:
    """Started and stopped by scripts/postgres.sh's own functions, so that the tests and the
    benchmarks run PostgreSQL alike; the script's EXIT trap is dropped once the cluster is up,
    since this process, not the short-lived shell, decides when it stops."""

    def __init__(self, url: str, directory: str):
        self.url, self.directory = url, directory

    @classmethod
    def start(cls) -> "Postgres | None":
        script = (
            '. scripts/postgres.sh; [ -n "$PG_BIN" ] || exit 3; postgres_start >&2 || exit 1; '
            'trap - EXIT INT TERM; printf "%s\\n%s\\n" "$PG_URL" "$PG_DIR"'
        )
        done = subprocess.run(["sh", "-c", script], cwd=ROOT, capture_output=True, text=True)
        if done.returncode == 3:
            return None
        if done.returncode != 0:
            raise SystemExit(f"PostgreSQL did not start:\n{done.stdout}{done.stderr}")
        note(done.stderr.strip())
        url, directory = done.stdout.split()
        return cls(url, directory)

    def stop(self) -> None:
        script = '. scripts/postgres.sh; PG_DIR="$1"; postgres_stop'
        subprocess.run(["sh", "-c", script, "sh", self.directory], cwd=ROOT, check=False)


# ---- in the child process: set-up and check ------------------------------------------------------


def django_setup() -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def setup(args, out: Path) -> None:
    """Migrate, build the contest (through the application's services, as tests/factories.py
    does) and log every juror in; write the plan the load phase follows."""
    django_setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import Group, User
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    from grading.models import Mark
    from grading.rules import roles
    from tests import factories

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    problems = max(1, -(-args.jurors // JURORS_PER_PROBLEM))
    contest = factories.make_contest(
        "load", problems=problems, papers=args.papers, criteria=CRITERIA
    )
    roles.ensure_role_groups()
    juror_group = Group.objects.get(name=roles.JUROR)
    plan = {
        "slug": contest.slug,
        "session_cookie": settings.SESSION_COOKIE_NAME,
        "jurors": [],
    }
    for index in range(args.jurors):
        number = index % problems + 1
        # No password: hashing 40 of them would only slow the set-up down.
        user = User.objects.create_user(username=f"load-juror-{index}")
        user.groups.add(juror_group)
        factories.assign(contest, [user], problems=[number])
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        cells = (
            Mark.objects.filter(sheet__juror=user, sheet__problem__number=number)
            .filter(paper__labels__problem__number=number)
            .values_list("paper__labels__label", "criterion__code", "pk")
        )
        plan["jurors"].append(
            {"problem": number, "session": session.session_key, "cells": list(cells)}
        )
    out.write_text(json.dumps(plan))


def verify(acks_file: Path, out: Path) -> None:
    """Every acknowledged save against the database: its MarkEvent (exactly one, with the value
    sent) and, for the cell's last save, the mark itself; then every event nobody acknowledged.
    The database is this run's alone, so every event in it comes from the load."""
    django_setup()
    from grading.models import Mark, MarkEvent

    acks = [(mark, version, points) for mark, version, points in json.loads(acks_file.read_text())]
    events: dict[tuple[int, int], list] = {}
    for mark, version, points in MarkEvent.objects.values_list("mark_id", "version", "new_points"):
        events.setdefault((mark, version), []).append(points)
    marks = {
        pk: (version, points)
        for pk, version, points in Mark.objects.filter(version__gt=0).values_list(
            "pk", "version", "points"
        )
    }

    def value(sent: str) -> Decimal | None:
        return Decimal(sent) if sent else None

    lost = 0
    last: dict[int, tuple[int, str]] = {}
    for mark, version, points in acks:
        found = events.get((mark, version), [])
        if len(found) != 1 or found[0] != value(points):
            lost += 1
        if version > last.get(mark, (-1, ""))[0]:
            last[mark] = (version, points)
    for mark, (version, points) in last.items():
        # Each juror sends one request at a time and waits for its answer, so the mark must
        # still hold the last save acknowledged for it.
        if marks.get(mark) != (version, value(points)):
            lost += 1
    total_events = sum(len(found) for found in events.values())
    # One event per acknowledged save; any other is a write no answer acknowledged, or a
    # second event for the same save.
    matched = len({(mark, version) for mark, version, _ in acks} & events.keys())
    out.write_text(
        json.dumps(
            {
                "checked": len(acks),
                "events": total_events,
                "lost": lost,
                "duplicated": total_events - matched,
            }
        )
    )


if __name__ == "__main__":
    main()
