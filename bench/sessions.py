"""Discussion sessions in the room: how soon every member's screen follows the cell the session
moves to, with 40 jurors in 10 sessions at once, through gunicorn on SQLite (DEBUG off).

Set-up (a child process): a contest of 10 problems, each graded by 4 jurors who disagree on
every cell of 5 AI papers (10 open cells a problem), the resolution phase open, and on each
problem a session started by its first juror and joined by the other three (through
`grading.resolution.sessions`, as the pages do), each juror signed in (a session made as
`force_login` makes one).

Run: each juror's page does what static/grading/live.js does: asks the session's change token
every `--poll` seconds (1, the session page's interval) with the ETag of its last answer (304
while nothing changed) and, when it changed, fetches the whole page again. In each session its
first juror moves to the next cell every `--move-every` seconds (a POST, as the "Next cell"
button sends). A member has followed when the page it fetched shows the new cell; the latency
is from the move's answer to that page's answer.

Figures:
- sessions_follow_p95_seconds: the 95th percentile of every member's follow latency. Goal
  <= 2 s ("within about two seconds", issue 34).
- sessions_follow_missed: moves some member never saw (that cell or a later one) by the end
  of the run, which goes on for the goal's latency after the last move. Goal == 0.
- sessions_server_errors: 5xx answers and requests with no answer. Goal == 0.

Run: .venv/bin/python bench/sessions.py [--seconds 30] [--sessions 10] [--jurors-per-session 4]
(prints: name  measured  goal  met/not met; details on stderr)."""

import argparse
import http.client
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import load
from _throwaway import ROOT

PYTHON = sys.executable
GOAL_SECONDS = 2.0
WHERE = re.compile(rb"<strong>Cell (\d+) of (\d+)</strong>")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--jurors-per-session", type=int, default=4)
    parser.add_argument("--poll", type=float, default=1.0, help="seconds between polls")
    parser.add_argument("--move-every", type=float, default=4.0, help="seconds between moves")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--setup", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setup:
        return setup(args, Path(args.setup))
    workdir = Path(tempfile.mkdtemp(prefix="jury-sessions-"))
    try:
        sys.exit(run(args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def setup(args, out: Path) -> None:
    load.django_setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    from grading.console.contest_life import contest_resolution_open
    from grading.resolution import sessions
    from grading.rules import roles
    from tests import factories
    from tests.grading.scenario import grade, submit

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    contest = factories.make_contest("room", problems=args.sessions, papers=5)
    chair = factories.make_user("bench-chair", roles.CHAIR)
    problems = {p.number: p for p in contest.problems.all()}
    plan = {"slug": contest.slug, "cookie": settings.SESSION_COOKIE_NAME, "jurors": []}
    groups = {}
    for number, problem in problems.items():
        jurors = [
            factories.make_user(f"juror-{number}-{k}", roles.JUROR)
            for k in range(args.jurors_per_session)
        ]
        factories.assign(contest, jurors, problems=[number])
        for k, juror in enumerate(jurors):
            for paper in contest.papers.all():
                # Half the jurors give the most, half the least: every cell open.
                grade(juror, problem, paper, *(("12", "8") if k % 2 else ("0", "0")))
            submit(juror, problem)
        groups[number] = jurors
    contest_resolution_open(contest=contest, actor=chair)
    for number, jurors in groups.items():
        session = sessions.session_start(problem=problems[number], actor=jurors[0])
        for juror in jurors[1:]:
            sessions.session_join(session=session, actor=juror)
        for k, juror in enumerate(jurors):
            login = SessionStore()
            login[SESSION_KEY] = str(juror.pk)
            login[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            login[HASH_SESSION_KEY] = juror.get_session_auth_hash()
            login.create()
            plan["jurors"].append(
                {"problem": number, "session": login.session_key, "moves": k == 0}
            )
    out.write_text(json.dumps(plan))


@dataclass
class Member:
    port: int
    plan: dict
    spec: dict
    # (position seen, when its page came back)
    seen: list[tuple[int, float]] = field(default_factory=list)
    errors: int = 0
    polls: int = 0

    def __post_init__(self):
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        self.cookies = {self.plan["cookie"]: self.spec["session"]}
        self.base = f"/contests/{self.plan['slug']}/p{self.spec['problem']}/session/"
        self.csrf = ""

    def request(self, method: str, path: str, body: str | None = None, headers=None):
        headers = dict(headers or {})
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers |= {"Content-Type": load.FORM, "X-CSRFToken": self.csrf}
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
        except OSError:
            self.errors += 1
            self.connection.close()
            return 0, b"", {}
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        if response.status >= 500:
            self.errors += 1
        return response.status, data, dict(response.getheaders())

    def page(self) -> None:
        status, data, _ = self.request("GET", self.base)
        found = WHERE.search(data)
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', data)
        if token:
            self.csrf = token.group(1).decode()
        if status == 200 and found:
            self.seen.append((int(found.group(1)), time.monotonic()))

    def follow(self, until: float, poll: float) -> None:
        """live.js: the token every `poll` seconds, the page again when it moved."""
        etag = None
        while time.monotonic() < until:
            headers = {"If-None-Match": etag} if etag else {}
            status, _, answer = self.request("GET", f"{self.base}stamp/", headers=headers)
            self.polls += 1
            if status == 200:
                changed = etag is not None
                etag = answer.get("ETag") or answer.get("etag")
                if changed:
                    self.page()
            time.sleep(poll)

    def move(self, until: float, every: float, moves: list) -> None:
        """The session's first juror, on a page of their own: the next cell every `every`
        seconds."""
        self.page()
        position = 1
        while time.monotonic() + every < until:
            time.sleep(every)
            position += 1
            body = urlencode({"position": position})
            status, _, _ = self.request("POST", f"{self.base}move/", body=body)
            if status in (302, 303):
                moves.append((self.spec["problem"], position, time.monotonic()))


def run(args, workdir: Path) -> int:
    env = load.server_env(f"sqlite:///{workdir / 'sessions.sqlite3'}", workdir / "static")
    plan_file = workdir / "plan.json"
    subprocess.run(
        [
            *(PYTHON, __file__, "--sessions", str(args.sessions)),
            *("--jurors-per-session", str(args.jurors_per_session), "--setup", str(plan_file)),
        ],
        env=env,
        check=True,
        cwd=ROOT,
    )
    plan = json.loads(plan_file.read_text())
    port = load.free_port()
    server = subprocess.Popen(
        [
            *(PYTHON, "-m", "gunicorn", "grading.wsgi:application"),
            *("--bind", f"127.0.0.1:{port}", "--workers", str(args.workers)),
            *("--threads", str(args.threads), "--worker-class", "gthread"),
            *("--keep-alive", "300", "--timeout", "60", "--log-level", "warning"),
        ],
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        load.wait_until_serving(port, server)
        members = [Member(port, plan, spec) for spec in plan["jurors"]]
        for member in members:
            member.page()
        moves: list[tuple[int, int, float]] = []
        until = time.monotonic() + args.seconds
        # The members keep following after the last move for as long as the goal allows it:
        # a move made in the run's last second is followed, or missed, like any other.
        following_until = until + GOAL_SECONDS + args.poll
        threads = [
            threading.Thread(target=m.follow, args=(following_until, args.poll), daemon=True)
            for m in members
        ]
        movers = [m for m in members if m.spec["moves"]]
        threads += [
            threading.Thread(
                target=Member(port, plan, m.spec).move,
                args=(until, args.move_every, moves),
                daemon=True,
            )
            for m in movers
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        load.stop(server)
    return report(members, moves)


def report(members: list[Member], moves: list[tuple[int, int, float]]) -> int:
    latencies, missed = [], 0
    for problem, position, moved_at in moves:
        for member in members:
            if member.spec["problem"] != problem:
                continue
            followed = [at for seen, at in member.seen if seen >= position and at >= moved_at]
            if followed:
                latencies.append(min(followed) - moved_at)
            else:
                missed += 1
    latencies.sort()
    errors = sum(m.errors for m in members)
    p95 = load.percentile(latencies, 95)
    load.note(
        f"{len(moves)} moves in {len({p for p, _, _ in moves})} sessions, "
        f"{len(latencies)} follows, {sum(m.polls for m in members)} polls; latency p50 "
        f"{load.percentile(latencies, 50):.2f} s, p95 {p95:.2f} s, max "
        f"{latencies[-1] if latencies else float('nan'):.2f} s"
    )
    figures = [
        ("sessions_follow_p95_seconds", f"{p95:.2f}", f"<={GOAL_SECONDS:g}", p95 <= GOAL_SECONDS),
        ("sessions_follow_missed", str(missed), "==0", missed == 0),
        ("sessions_server_errors", str(errors), "==0", errors == 0),
    ]
    for name, value, goal, met in figures:
        print(f"{name}  {value}  {goal}  {'met' if met else 'not met'}", flush=True)
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    main()
