"""Every management command, worker start and test process loads the settings, the apps and the
URL conf: none of them may load the heavy libraries, which load where they are used (a printout,
a chart, a workbook). bench/startup.py measures the start against a bare Django project."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("weasyprint", "pandas", "scipy", "matplotlib", "openpyxl", "numpy", "krippendorff")

PROBE = """
import json, sys, django
django.setup()
import grading.urls  # the URL conf, as every request and `manage.py check` load it
from django.contrib import admin
admin.autodiscover()
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def loaded_at_start() -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        # DEBUG on for the local key and hosts (it is off by default), as in `make run`.
        env={
            "DJANGO_SETTINGS_MODULE": "grading.settings",
            "DEBUG": "true",
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_starting_django_loads_no_heavy_library():
    assert sorted(set(HEAVY) & loaded_at_start()) == []


def test_the_probe_sees_what_is_loaded():
    # Positive control: Django itself, and the project's own parts, are seen as loaded.
    assert {"django", "grading", "rubrics"} <= loaded_at_start()
