"""The settings of the test run: the site's own (grading/settings.py) with DEBUG on, as `make run`
has it, so that tests need no SECRET_KEY, ALLOWED_HOSTS or collected static files. DEBUG is off
by default for a deployment; this is the one place the tests turn it on (pyproject.toml names
this module for pytest-django). It is set in the environment, not only here, so that the
manage.py, runserver and gunicorn processes some tests start inherit it; tests of production
behaviour set DEBUG off (and a SECRET_KEY) in their own environment."""

import os

os.environ.setdefault("DEBUG", "true")

from grading.settings import *  # noqa: E402, F403
