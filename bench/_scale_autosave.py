"""The 40 jurors' autosave on the scale contest's own sheets, for bench/scale.py: a signed-in
session for each juror and a copy of the database taken when grading opens
(`autosave_snapshot`), then bench/load.py's measure run against that copy through gunicorn
(`autosave_run`), with jurors who send each criterion's own values (`SchemeJuror`). Not a
benchmark itself (`scripts/bench.sh` skips files starting with `_`)."""

import argparse
import json
import random
import secrets
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import load
from _throwaway import ROOT


def note(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


def autosave_snapshot(contest, path: Path) -> dict:
    """When the contest's grading opens (every sheet assigned, no mark given yet): a signed-in
    session for each of its 40 jurors, and a copy of the database as it then is, which
    bench/load.py's jurors then save into. Returns their plan (load.py's shape): each juror's
    problem, session and cells (label, criterion code, mark id) of their own sheet."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.db import connection
    from django.test import override_settings

    from grading.models import Mark, PaperLabel, Sheet
    from grading.rules.domain import points_text
    from rubrics.models import Criterion

    # The server's key, chosen here: a session and its auth hash are signed with it.
    secret = secrets.token_urlsafe(50)
    plan = {
        "slug": contest.slug,
        "secret_key": secret,
        "jurors": [],
    }
    labels = {
        (paper, problem): label
        for paper, problem, label in PaperLabel.objects.filter(
            problem__contest=contest
        ).values_list("paper_id", "problem_id", "label")
    }
    # Every value a cell of each criterion may take (blank, then 0 to its points by its step).
    values = {
        (problem, code): ["", *(points_text(step * k) for k in range(int(points / step) + 1))]
        for problem, code, points, step in Criterion.objects.filter(
            problem__contest=contest
        ).values_list("problem__number", "code", "points", "step")
    }
    sheets = Sheet.objects.filter(problem__contest=contest).select_related("juror", "problem")
    for sheet in sheets.order_by("juror__username", "problem__number"):
        if any(juror["user"] == sheet.juror_id for juror in plan["jurors"]):
            continue  # one sheet a juror: each sits in one grading group
        with override_settings(SECRET_KEY=secret):
            session = SessionStore()
            session[SESSION_KEY] = str(sheet.juror_id)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = sheet.juror.get_session_auth_hash()
            session.create()
        cells = [
            (labels[paper, sheet.problem_id], code, pk)
            for paper, code, pk in Mark.objects.filter(sheet=sheet).values_list(
                "paper_id", "criterion__code", "pk"
            )
        ]
        plan["jurors"].append(
            {"user": sheet.juror_id, "problem": sheet.problem.number,
             "session": session.session_key, "cells": cells,
             "values": {code: v for (n, code), v in values.items() if n == sheet.problem.number}}
        )  # fmt: skip
    connection.ensure_connection()
    copy = sqlite3.connect(path)
    try:
        connection.connection.backup(copy)
    finally:
        copy.close()
    return plan


class SchemeJuror(load.Juror):
    """load.py's juror, saving the values its cells' criteria allow (load.py's own contest has
    one scale, steps of 0.5 up to 4; this one has fifteen criteria with their own points and
    steps). The save itself is load.py's: one request at a time, each with the version the
    previous answer for that cell returned."""

    def values_for(self, code: str) -> list[str]:
        return self.spec["values"][code]


def autosave_run(database: Path, plan: dict, seconds: float, workdir: Path) -> tuple[list, bool]:
    """bench/load.py's three phases (a lone juror, all 40 at once, all 40 with their live
    pages polling) through gunicorn on the copied database, and its check of every
    acknowledged save; returns load.py's figure lines and whether a write was lost or
    duplicated or the server failed."""
    workdir.mkdir(parents=True)
    args = argparse.Namespace(
        jurors=len(plan["jurors"]), seconds=seconds, think=0.5, max_saves=1000,
        single_saves=300, workers=2, threads=4, poll_interval=5.0,
    )  # fmt: skip
    env = load.server_env(f"sqlite:///{database}", workdir / "static")
    env.update(SCANS_DIR=str(workdir.parent / "scans"), SECRET_KEY=plan["secret_key"])
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        env=env, cwd=ROOT, check=True,
    )  # fmt: skip
    # The cookie's name as the server (DEBUG off) calls it: its production settings name it.
    plan = plan | {"session_cookie": _server_setting(env, "SESSION_COOKIE_NAME")}
    port = load.free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "gunicorn", "grading.wsgi:application"),
            *("--bind", f"127.0.0.1:{port}", "--workers", str(args.workers)),
            *("--threads", str(args.threads), "--worker-class", "gthread"),
            *("--keep-alive", "300", "--timeout", "60", "--log-level", "warning"),
        ],
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    jurors = [SchemeJuror(index, port, plan, spec) for index, spec in enumerate(plan["jurors"])]
    try:
        load.wait_until_serving(port, server)
        for juror in jurors:
            juror.open_sheet()
        lone = jurors[0]
        lone.run(
            until=time.monotonic() + max(1.0, min(seconds, 30.0)),
            max_saves=args.single_saves,
            think=0.0,
            rng=random.Random(0),
        )
        single_p50 = statistics.median(lone.latencies[load.WARM_UP_SAVES :] or lone.latencies)
        quiet_elapsed = load.load_phase(jurors, args, seed=1000, poll=False)
        quiet = sorted(lat for juror in jurors for lat in juror.latencies)
        load.load_phase(jurors, args, seed=2000, poll=True)
        polling = sorted(lat for juror in jurors for lat in juror.latencies)
    finally:
        for juror in jurors:
            juror.close()
        load.stop(server)
    acks_file, result_file = workdir / "acks.json", workdir / "result.json"
    acks_file.write_text(json.dumps([ack for juror in jurors for ack in juror.acks]))
    subprocess.run(
        [sys.executable, load.__file__, "--verify", str(acks_file), str(result_file)],
        env=env, check=True, cwd=ROOT,
    )  # fmt: skip
    result = json.loads(result_file.read_text())
    statuses: dict[int, int] = {}
    for juror in jurors:
        for status, count in [*juror.statuses.items(), *juror.poll_statuses.items()]:
            statuses[status] = statuses.get(status, 0) + count
    errors = sum(c for s, c in statuses.items() if s >= 500)
    errors += sum(juror.transport_errors for juror in jurors)
    p95, polling_p95 = load.percentile(quiet, 95), load.percentile(polling, 95)
    cells = statistics.median(len(spec["cells"]) for spec in plan["jurors"])
    note(
        f"autosave on {plan['slug']}: {len(jurors)} jurors, {cells:.0f} cells a sheet (median); "
        f"lone juror p50 {single_p50 * 1000:.1f} ms; {len(quiet)} saves in {quiet_elapsed:.0f} "
        f"s, p50 {load.percentile(quiet, 50) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms; polling "
        f"p95 {polling_p95 * 1000:.1f} ms; answers "
        + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
        + f"; {result['checked']} acknowledged saves checked"
    )
    lines = [
        ("p95_vs_single_p50", p95 / single_p50, load.GOAL_RATIO),
        ("lost_writes", result["lost"], 0),
        ("duplicated_writes", result["duplicated"], 0),
        ("server_errors", errors, 0),
        ("p95_polling_vs_not", polling_p95 / p95, load.GOAL_POLLING),
    ]
    failed = bool(result["lost"] or result["duplicated"] or errors)
    return lines, failed


def _server_setting(env: dict, name: str) -> str:
    code = (
        f"import django; django.setup(); from django.conf import settings; print(settings.{name})"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, check=True, capture_output=True, text=True
    )
    return done.stdout.strip().splitlines()[-1]
