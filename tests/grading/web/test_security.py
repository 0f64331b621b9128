"""Production hardening: deploy checks, cookies, log-in throttling, the Content-Security-Policy
header with templates it can enforce, and CSRF on every URL that accepts a POST."""

import os
import re
import secrets
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse

from tests.factories import PASSWORD

ROOT = Path(__file__).resolve().parents[3]

EXPECTED_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


def _production_env(tmp_path, **extra) -> dict:
    clean = {
        key: value
        for key, value in os.environ.items()
        # tests/conftest.py sets DJANGO_ALLOW_ASYNC_UNSAFE for Playwright; no deployment may.
        if key
        not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    return {
        **clean,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "jury.example",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'jury.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "grading.settings",
        **extra,
    }


# --- production settings ---------------------------------------------------------------------


@pytest.mark.own_sqlite
def test_the_deploy_check_is_clean_in_production_mode(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=_production_env(tmp_path),
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stdout) == (
        0,
        "System check identified no issues (0 silenced).\n",
    ), result.stderr


@pytest.mark.own_sqlite
def test_the_deploy_check_complains_about_a_weak_secret_key(tmp_path):
    # The clean run above only means something if the same command can find a problem.
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=_production_env(tmp_path, SECRET_KEY="short"),
        capture_output=True,
        text=True,
    )
    assert (result.returncode, "security.W009" in result.stderr) == (0, True)


@pytest.mark.own_sqlite
def test_production_cookies_are_secure_http_only_and_bound_to_the_host(tmp_path):
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_NAME, s.SESSION_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY, "
        "s.CSRF_COOKIE_NAME, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_production_env(tmp_path),
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stdout.split()) == (
        0,
        ["__Host-sessionid", "True", "True", "__Host-csrftoken", "True", "True", "31536000"],
    ), result.stderr


@pytest.mark.own_sqlite
@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"LOGIN_FAILURE_LIMIT": "0"}, "LOGIN_FAILURE_LIMIT must be at least 1; got 0."),
        ({"LOGIN_COOLOFF_MINUTES": "-5"}, "LOGIN_COOLOFF_MINUTES must be at least 1; got -5."),
        ({"TRUSTED_PROXY_COUNT": "one"}, "TRUSTED_PROXY_COUNT must be a whole number; got 'one'."),
    ],
)
def test_a_bad_throttling_setting_stops_start_up_with_a_sentence(tmp_path, env, message):
    result = subprocess.run(
        [sys.executable, "-c", "import grading.settings"],
        cwd=ROOT,
        env=_production_env(tmp_path, **env),
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stderr.strip().splitlines()[-1]) == (
        1,
        f"django.core.exceptions.ImproperlyConfigured: {message}",
    )


# --- log-in throttling -----------------------------------------------------------------------


def _log_in(client: Client, username: str, password: str, address: str = "10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def _page_templates(response) -> list[str]:
    return [t.name for t in response.templates if t.name.startswith("grading/")]


def test_five_wrong_passwords_pause_that_username_from_that_address(juror):
    client = Client()
    statuses = [_log_in(client, "alice", "wrong").status_code for _ in range(5)]
    locked = _log_in(client, "alice", PASSWORD)
    assert (statuses, locked.status_code, _page_templates(locked)) == (
        [200, 200, 200, 200, 429],
        429,
        ["grading/locked_out.html"],
    )
    assert "_auth_user_id" not in client.session
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", locked.content.decode())).strip()
    assert (
        "The password for alice was wrong 5 times from this network address, so logging in as "
        "alice from here is paused for 15 minutes."
    ) in text


def test_a_lock_out_leaves_other_users_and_other_addresses_alone(juror, other_juror):
    for _ in range(5):
        _log_in(Client(), "alice", "wrong", address="10.0.0.1")
    same_address_other_user = _log_in(Client(), "bob", PASSWORD, address="10.0.0.1")
    same_user_other_address = _log_in(Client(), "alice", PASSWORD, address="10.0.0.2")
    assert (same_address_other_user.status_code, same_user_other_address.status_code) == (302, 302)


def test_the_lock_out_ends_after_the_cool_off(juror):
    for _ in range(5):
        _log_in(Client(), "alice", "wrong")
    assert _log_in(Client(), "alice", PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=16)
    )
    response = _log_in(Client(), "alice", PASSWORD)
    assert (response.status_code, response["Location"]) == (302, reverse("home"))


def test_a_successful_log_in_resets_the_count_of_failures(juror):
    for _ in range(4):
        _log_in(Client(), "alice", "wrong")
    assert _log_in(Client(), "alice", PASSWORD).status_code == 302
    for _ in range(4):
        _log_in(Client(), "alice", "wrong")
    assert _log_in(Client(), "alice", PASSWORD).status_code == 302


def test_behind_a_trusted_proxy_the_client_address_comes_from_x_forwarded_for(rf, monkeypatch):
    import grading.settings as settings_module

    request = rf.get("/", HTTP_X_FORWARDED_FOR="6.6.6.6, 10.1.2.3", REMOTE_ADDR="127.0.0.1")
    direct = settings_module.client_ip(request)
    monkeypatch.setattr(settings_module, "TRUSTED_PROXY_COUNT", 1)
    proxied = settings_module.client_ip(request)
    # Without a configured proxy the header is the client's own word and is ignored; with one,
    # the entry the proxy appended counts and the spoofable left-most one does not.
    assert (direct, proxied) == ("127.0.0.1", "10.1.2.3")


# --- Content-Security-Policy -----------------------------------------------------------------


def test_every_page_carries_the_content_security_policy(client, juror, contest):
    anonymous = client.get(reverse("login"))
    client.force_login(juror)
    home = client.get(reverse("home"))
    missing = client.get("/no-such-page/")
    assert [r.status_code for r in (anonymous, home, missing)] == [200, 200, 404]
    assert [r["Content-Security-Policy"] for r in (anonymous, home, missing)] == [EXPECTED_CSP] * 3


# Templates under a `pdf/` folder are rendered by WeasyPrint into PDFs and never reach a browser,
# so the browser's policy does not apply to them (they keep their <style> block).
_INLINE = [
    (re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>", re.IGNORECASE), "inline <script>"),
    (re.compile(r"<style\b", re.IGNORECASE), "<style> element"),
    (re.compile(r"<[a-zA-Z][^>]*\son[a-z]+\s*=", re.IGNORECASE), "on…= event handler"),
    (re.compile(r"<[a-zA-Z][^>]*\sstyle\s*=", re.IGNORECASE), "style= attribute"),
    (re.compile(r"javascript:", re.IGNORECASE), "javascript: URL"),
]


def inline_code_in(directory: Path) -> list[str]:
    """Every place in the templates under `directory` that the policy would block."""
    found = []
    for path in sorted(directory.rglob("*.html")):
        if "pdf" in path.relative_to(directory).parts[:-1]:
            continue
        text = path.read_text(encoding="utf-8")
        for pattern, what in _INLINE:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(directory)}:{line}: {what}")
    return found


def _template_dirs() -> list[Path]:
    dirs = [Path(d) for engine in settings.TEMPLATES for d in engine.get("DIRS", [])]
    dirs += [ROOT / app / "templates" for app in ("grading", "rubrics")]
    return [d for d in dirs if d.is_dir()]


def test_no_template_has_inline_script_event_handlers_or_inline_styles():
    found = [place for directory in _template_dirs() for place in inline_code_in(directory)]
    assert found == []


def test_the_template_scan_finds_every_kind_of_inline_code(tmp_path):
    (tmp_path / "grading").mkdir()
    (tmp_path / "grading" / "pdf").mkdir()
    (tmp_path / "grading" / "page.html").write_text(
        '<script src="/static/a.js"></script>\n'
        "<script>alert(1)</script>\n"
        '<button type="button" onclick="go()">Go</button>\n'
        '<p style="color: red">x</p>\n'
        "<style>p {}</style>\n"
        '<a href="javascript:go()">go</a>\n'
        "<p>Clicking is on=purpose, style=plain words outside tags.</p>\n",
        encoding="utf-8",
    )
    (tmp_path / "grading" / "pdf" / "paper.html").write_text("<style>p {}</style>")
    assert inline_code_in(tmp_path) == [
        "grading/page.html:2: inline <script>",
        "grading/page.html:5: <style> element",
        "grading/page.html:3: on…= event handler",
        "grading/page.html:4: style= attribute",
        "grading/page.html:6: javascript: URL",
    ]


# --- CSRF on every POST ----------------------------------------------------------------------


# A value for every URL parameter name in use; a new name makes the test below fail with a
# sentence asking for one, so no future view escapes the check.
def _sample_values(contest) -> dict[str, str]:
    problem = contest.problems.get(number=1)
    return {
        "contest": contest.slug,
        "problem": "1",
        "label": problem.paper_labels.order_by("label").first().label,
        "code": "A1",
        "fmt": "csv",
        "chart": "scatter",
        "pk": "1",
        "app_label": "grading",
        "object_id": "1",
        "content_type_id": "1",
        "id": "1",
        "url": "anything/",
        "uidb64": "MQ",
        "token": "set-password",
        "username": "alice",
        "step": "finalize",
        "position": "1",
        "question": "1",
        "note": "1",
        "public_code": contest.papers.order_by("public_code").first().public_code,
    }


_ROUTE_PARAM = re.compile(r"<(?:\w+:)?(\w+)>")
_REGEX_PARAM = re.compile(r"\(\?P<(\w+)>[^)]*\)")


def _all_patterns(patterns=None, prefix=""):
    """(route text, pattern) for every URL pattern, with included prefixes joined on."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from _all_patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def _concrete_url(route: str, values: dict[str, str]) -> str:
    def value(match):
        name = match.group(1)
        if name not in values:
            raise AssertionError(
                f"URL parameter {name!r} in {route!r} has no sample value; add one to "
                "_sample_values in tests/grading/web/test_security.py."
            )
        return values[name]

    url = _ROUTE_PARAM.sub(value, _REGEX_PARAM.sub(value, route))
    return "/" + url.replace("^", "").replace("$", "").replace("\\", "")


def test_every_url_refuses_a_post_without_a_csrf_token(organizer, contest):
    values = _sample_values(contest)
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    statuses = {}
    for route, pattern in _all_patterns():
        url = _concrete_url(route, values)
        # The URL must reach the pattern it was built from, or the 403 would prove nothing.
        assert resolve(url).func == pattern.callback, f"{url} does not resolve to {route}"
        statuses[route] = client.post(url, {"points": "1"}).status_code
    assert len(statuses) > 40
    assert statuses == dict.fromkeys(statuses, 403)


def test_logging_in_and_out_need_the_csrf_token(juror):
    client = Client(enforce_csrf_checks=True)
    without_token = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    client.get(reverse("login"))
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    with_token = client.post(
        reverse("login"),
        {"username": "alice", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    logout_without = client.post(reverse("logout"))
    still_logged_in = "_auth_user_id" in client.session
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    logout_with = client.post(reverse("logout"), {"csrfmiddlewaretoken": token})
    assert (
        without_token.status_code,
        with_token.status_code,
        logout_without.status_code,
        still_logged_in,
        logout_with.status_code,
        "_auth_user_id" in client.session,
    ) == (403, 302, 403, True, 302, False)
