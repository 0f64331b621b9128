"""Project settings. Every deploy setting comes from an environment variable with a safe local
default; a value that cannot be understood raises ImproperlyConfigured at start-up."""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: str) -> bool:
    value = os.environ.get(name, default).strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {value!r}."
    )


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, str(default))
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {value!r}.") from None


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Off unless asked, so that a deployment never runs with the built-in key below: `make run`
# (scripts/run.sh), `make demo` and the test run (tests/settings.py) turn it on.
DEBUG = env_bool("DEBUG", "false")

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-local-development-only-never-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must list the site's host names when DEBUG is off.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    # django-import-export's resources write the results exports (grading/results/exports.py);
    # its admin integration is not used, so it is not an installed app: its admin module would
    # load openpyxl and numpy at every start of every command.
    "axes",
    # Background jobs: django.tasks' database backend and its worker (`manage.py jobs_worker`).
    "django_tasks_db",
    "rubrics",
    "grading",
    # grading's parts, by feature (README, "Architecture"): each holds its own commands and
    # template tags; the models of all of them are grading's.
    "grading.web",
    "grading.papers",
    "grading.jobs",
    "grading.marking",
    "grading.metrics",
    "grading.intake",
    "grading.resolution",
    "grading.results",
    "grading.printing",
    "grading.backup",
    "grading.appeals",
    "grading.assigning",
    "grading.calibration",
    "grading.schemes",
    "grading.console",
    "grading.demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Times in the reader's time zone (the cookie static/grading/timezone.js sets).
    "grading.web.middleware.ReaderTimeZoneMiddleware",
    # Names the signed-in reader of each page, for the sheets' offline copies (offline_reading.py).
    "grading.web.offline_reading.ReaderHeaderMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # The one place where a refusal a view lets rise becomes the user's answer.
    "grading.web.errors.RefusalMiddleware",
    # Last, as django-axes asks: it turns a lock-out flagged during log-in into the 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "grading.urls"
WSGI_APPLICATION = "grading.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "grading.web.context_processors.inbox",
                "grading.web.context_processors.reader_zone",
                "grading.web.context_processors.live_refresh",
            ],
        },
    },
]


# WAL lets jurors read while another juror's autosave writes; IMMEDIATE takes the write lock at
# BEGIN so that concurrent writers queue on the busy timeout instead of failing with "database
# is locked" half-way through a transaction.
SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}
# Each gunicorn thread keeps its connection between requests, on SQLite as on PostgreSQL: opening
# one (and running the PRAGMAs above) cost every autosave half a millisecond of CPU more.
CONN_MAX_AGE_SECONDS = 60


def _database_from_env() -> dict:
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "db.sqlite3",
            "OPTIONS": dict(SQLITE_OPTIONS),
            "CONN_MAX_AGE": CONN_MAX_AGE_SECONDS,
        }
    try:
        config = dj_database_url.parse(url, conn_max_age=CONN_MAX_AGE_SECONDS)
    except ValueError as error:
        raise ImproperlyConfigured(f"DATABASE_URL could not be understood: {error}") from None
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
    elif config["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_URL must be a postgres:// or sqlite:// URL.")
    return config


DATABASES = {"default": _database_from_env()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# AxesStandaloneBackend only refuses locked-out log-ins; ModelBackend does the authenticating.
# Every authenticate() call must therefore pass `request`: the log-in form does; in tests use
# `client.force_login(user)`, or `client.login(request=HttpRequest(), ...)`.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if not DEBUG:
    # In production the site serves its own static files (runserver does with DEBUG on):
    # WhiteNoise, right after the security middleware, from STATIC_ROOT, with hashed names
    # (cached for a year by browsers) and compressed copies made by collectstatic, which
    # `make serve` runs.
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
    STORAGES["staticfiles"] = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}
    # The TrueType fonts are for WeasyPrint, read from disk, never sent to a browser (pages
    # use the WOFF2 files): skipping them took collectstatic from 28 CPU-seconds to 7.
    from whitenoise.compress import Compressor

    WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "ttf")

# Background jobs (django.tasks): the database backend, so that a job outlives the request that
# started it and a worker process (`manage.py jobs_worker`) runs it. Jobs' files (the
# whole contest's printouts) go to JOBS_DIR and are served by an access-checked view only.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
JOBS_DIR = Path(os.environ.get("JOBS_DIR", BASE_DIR / "var" / "jobs"))
# A finished job's file (a whole contest's printouts run to hundreds of MB) is removed
# JOBS_KEEP_DAYS after the job finished, by the task worker about once a day (`prune_jobs` does
# it by hand); the Job row stays, as the record of who asked for what.
JOBS_KEEP_DAYS = env_int("JOBS_KEEP_DAYS", 30)
if JOBS_KEEP_DAYS < 1:
    raise ImproperlyConfigured(f"JOBS_KEEP_DAYS must be at least 1; got {JOBS_KEEP_DAYS}.")

# Uploads. The only file uploaded is a juror's XLSX sheet; its view refuses a larger body by its
# Content-Length before reading it (grading/marking/views.py), and a sheet that passes stays in
# memory. Other posts are small forms: Django's own bound for them, stated here.
SHEET_UPLOAD_MAX_BYTES = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = SHEET_UPLOAD_MAX_BYTES
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# How many files one upload may hold: a whole batch of scans (255 contestants' PDFs, chosen at
# once) fits. A post over it gets a sentence naming the setting (grading/web/errors.py).
DATA_UPLOAD_MAX_NUMBER_FILES = env_int("DATA_UPLOAD_MAX_NUMBER_FILES", 500)
# One upload of scanned papers (many PDFs, or a zip of them, and a page map) is at most
# SCAN_UPLOAD_MAX_BYTES (2 GB: a whole olympiad's scans at 300 dpi), and so are a zip's files
# once extracted. The scans' page streams every file to a temporary file, never to memory.
SCAN_UPLOAD_MAX_BYTES = env_int("SCAN_UPLOAD_MAX_BYTES", 2 * 1024 * 1024 * 1024)
for _name in ("DATA_UPLOAD_MAX_NUMBER_FILES", "SCAN_UPLOAD_MAX_BYTES"):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1; got {globals()[_name]}.")
# The console's imports (problem set, schemes, AI outputs, human scores): one upload at most
# IMPORT_UPLOAD_MAX_BYTES (a zip of a whole competition's record folders fits); a zip holds at
# most IMPORT_ZIP_MAX_MEMBERS files and IMPORT_ZIP_MAX_BYTES once extracted (checked before
# extracting, and again while writing). Uploads wait for the confirmation in IMPORTS_DIR.
IMPORT_UPLOAD_MAX_BYTES = 50 * 1024 * 1024
IMPORT_ZIP_MAX_MEMBERS = 5000
IMPORT_ZIP_MAX_BYTES = 500 * 1024 * 1024
IMPORTS_DIR = Path(os.environ.get("IMPORTS_DIR", BASE_DIR / "var" / "imports"))
# A contest's backup (grading/backup/) is a zip archive: its rows as one JSON document plus each
# scanned page's PNG as its own member, written and read member by member, so that memory does
# not grow with the pages. Its bounds, each refused by name both ways (export_contest refuses to
# write what import_contest and the console's restore would refuse to read; set them alike
# wherever backups are taken and restored):
# - BACKUP_MAX_MB: the archive's members together, unpacked (disk, not memory), and the
#   console's restore upload. 255 papers × 5 problems × 6 pages of a few hundred kB each fit;
# - BACKUP_JSON_MAX_MB: the document, read into memory but for its marks, read row by row (a
#   backup written before the archive, with its pages as base64 inside it, is this alone);
# - BACKUP_MAX_MEMBERS: files in the archive (one per scanned page, and the document);
# - BACKUP_PAGE_MAX_MB: one scanned page's image (a 150 dpi page is a few hundred kB).
BACKUP_MAX_MB = env_int("BACKUP_MAX_MB", 4096)
BACKUP_JSON_MAX_MB = env_int("BACKUP_JSON_MAX_MB", 200)
BACKUP_MAX_MEMBERS = env_int("BACKUP_MAX_MEMBERS", 100_000)
BACKUP_PAGE_MAX_MB = env_int("BACKUP_PAGE_MAX_MB", 20)
for _name in ("BACKUP_MAX_MB", "BACKUP_JSON_MAX_MB", "BACKUP_MAX_MEMBERS", "BACKUP_PAGE_MAX_MB"):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1; got {globals()[_name]}.")

# Human contestants' scanned pages (grading/intake/scans/): stored as PNG under SCANS_DIR,
# upright, stripped of metadata, with the band where the contestant writes their code painted
# over (the contest's scan mask, set in the admin). Served by access-checked views only.
SCANS_DIR = Path(os.environ.get("SCANS_DIR", BASE_DIR / "var" / "scans"))

# A scanned PDF is checked against these bounds before any page is rendered, from its structure
# alone (grading/intake/scans/reading.py): at most SCAN_MAX_PAGES pages a file, SCAN_MAX_PAGE_INCHES on
# a page's long side (A3 is 16.5), SCAN_MAX_IMAGE_MEGAPIXELS of images on a page (an A4 page at
# 600 dpi is 35), SCAN_MAX_STREAM_MEGABYTES once inflated for any other part of the file (a
# page's drawing, a font: a scan's are kilobytes); pages render at 150 dpi, at most
# SCAN_RENDER_MAX_PIXELS on the long side.
SCAN_MAX_PAGES = env_int("SCAN_MAX_PAGES", 1000)
SCAN_MAX_PAGE_INCHES = env_int("SCAN_MAX_PAGE_INCHES", 20)
SCAN_MAX_IMAGE_MEGAPIXELS = env_int("SCAN_MAX_IMAGE_MEGAPIXELS", 40)
SCAN_MAX_STREAM_MEGABYTES = env_int("SCAN_MAX_STREAM_MEGABYTES", 16)
SCAN_RENDER_MAX_PIXELS = env_int("SCAN_RENDER_MAX_PIXELS", 2500)
for _name in (
    "SCAN_MAX_STREAM_MEGABYTES",
    "SCAN_MAX_PAGES",
    "SCAN_MAX_PAGE_INCHES",
    "SCAN_MAX_IMAGE_MEGAPIXELS",
    "SCAN_RENDER_MAX_PIXELS",
):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1; got {globals()[_name]}.")

# Rendered PDFs are cached here by a hash of their content (see grading/printing/pdf.py).
CACHE_DIR = Path(os.environ.get("CACHE_DIR", BASE_DIR / "var" / "cache"))
# Printouts (grading/printing/pdf.py) render in a pool of PRINT_WORKERS processes, each replaced after
# PRINT_TASKS_PER_CHILD files so that what WeasyPrint and pdfium keep is given back to the
# system; a bundle of more than PRINT_BUNDLE_IN_REQUEST papers is made by a background job
# rather than in the request (at ~1.5 s a paper, 60 papers would near gunicorn's timeout).
PRINT_WORKERS = env_int("PRINT_WORKERS", min(2, os.cpu_count() or 1))
PRINT_TASKS_PER_CHILD = env_int("PRINT_TASKS_PER_CHILD", 40)
PRINT_BUNDLE_IN_REQUEST = env_int("PRINT_BUNDLE_IN_REQUEST", 10)
for _name in ("PRINT_WORKERS", "PRINT_TASKS_PER_CHILD"):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1; got {globals()[_name]}.")
if PRINT_BUNDLE_IN_REQUEST < 0:
    raise ImproperlyConfigured(
        f"PRINT_BUNDLE_IN_REQUEST must be 0 or more; got {PRINT_BUNDLE_IN_REQUEST}."
    )

# Pages that refresh themselves (static/grading/live.js) ask whether anything changed every
# LIVE_POLL_SECONDS: a change shows within that. Each open page asks once per period, mostly for
# a 304; tests set it short rather than waiting five seconds for a poll.
_live_poll = os.environ.get("LIVE_POLL_SECONDS", "5")
try:
    LIVE_POLL_SECONDS = float(_live_poll)
except ValueError:
    LIVE_POLL_SECONDS = float("nan")
if not 0 < LIVE_POLL_SECONDS < float("inf"):
    raise ImproperlyConfigured(
        f"LIVE_POLL_SECONDS must be a number of seconds above 0, such as 5; got {_live_poll!r}."
    )

# Log-in throttling (django-axes), two limits within LOGIN_COOLOFF_MINUTES (login_throttle.py):
# - LOGIN_FAILURE_LIMIT wrong passwords for one username from one address pause that pair. The
#   pair, not the address alone, so that jurors sharing a venue's network do not lock each other
#   out;
# - LOGIN_ADDRESS_FAILURE_LIMIT wrong passwords from one address, whatever the usernames, pause
#   every log-in from it: trying a password on many usernames is limited too. Higher, so that a
#   venue's shared address survives a few jurors' typos.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
if AXES_FAILURE_LIMIT < 1:
    raise ImproperlyConfigured(f"LOGIN_FAILURE_LIMIT must be at least 1; got {AXES_FAILURE_LIMIT}.")
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 30)
if LOGIN_ADDRESS_FAILURE_LIMIT < AXES_FAILURE_LIMIT:
    raise ImproperlyConfigured(
        "LOGIN_ADDRESS_FAILURE_LIMIT must be at least LOGIN_FAILURE_LIMIT "
        f"({AXES_FAILURE_LIMIT}); got {LOGIN_ADDRESS_FAILURE_LIMIT}."
    )
AXES_HANDLER = "grading.web.login_throttle.JuryAxesHandler"
_cooloff_minutes = env_int("LOGIN_COOLOFF_MINUTES", 15)
if _cooloff_minutes < 1:
    raise ImproperlyConfigured(f"LOGIN_COOLOFF_MINUTES must be at least 1; got {_cooloff_minutes}.")
AXES_COOLOFF_TIME = timedelta(minutes=_cooloff_minutes)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "grading/locked_out.html"
# Behind the reverse proxy that SECURE_PROXY_SSL_HEADER trusts, REMOTE_ADDR is the proxy's own
# address; TRUSTED_PROXY_COUNT proxies deep, the client is that many entries from the right of
# X-Forwarded-For (entries further left are whatever the client chose to send).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)


def client_ip(request) -> str:
    forwarded = [
        part.strip()
        for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if part.strip()
    ]
    if TRUSTED_PROXY_COUNT and len(forwarded) >= TRUSTED_PROXY_COUNT:
        return forwarded[-TRUSTED_PROXY_COUNT]
    return request.META.get("REMOTE_ADDR", "")


AXES_CLIENT_IP_CALLABLE = client_ip

# Content-Security-Policy (Django's own middleware): scripts and styles come only from our static
# files, never inline, so markup smuggled in through an AI explanation cannot run even if it got
# past the sanitizer. tests/grading/web/test_security.py keeps templates free of inline script/style.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", "true")
    # A load balancer's or monitor's health probe may speak plain HTTP to the server.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # The __Host- prefix makes browsers refuse these cookies unless they are Secure, for the
    # whole site and set by this host itself, so a sibling sub-domain cannot plant a session.
    SESSION_COOKIE_NAME = "__Host-sessionid"
    CSRF_COOKIE_NAME = "__Host-csrftoken"
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Every handler masks one-time sign-in tokens (grading/web/log_masking.py): runserver's request
    # lines and django.request's warnings carry the address, and the address carries the token.
    "filters": {"mask_sign_in_tokens": {"()": "grading.web.log_masking.MaskSignInTokens"}},
    "formatters": {
        # Django's own for runserver's request lines, which it drops when LOGGING names its logger.
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["mask_sign_in_tokens"]},
        "django.server": {
            "class": "logging.StreamHandler",
            "formatter": "django.server",
            "filters": ["mask_sign_in_tokens"],
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # WeasyPrint narrates every rendering step and axes announces itself at every start: noise
    # in commands' output, where people read summaries.
    "loggers": {
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
        # Named so that Django's default handlers for it (unmasked, and a mail to ADMINS, whom
        # this site has none of) are dropped: its records go up to the root's masking one.
        "django": {"handlers": [], "level": "INFO"},
        "weasyprint": {"level": "WARNING"},
        "weasyprint.progress": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}
