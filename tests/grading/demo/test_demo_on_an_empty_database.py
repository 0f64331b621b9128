"""load_demo's commands on an empty database: a dry run writes nothing, and --finish-grading
loads the demo first."""

from django.contrib.auth.models import User

from grading.demo.grading import demo_finish_grading
from grading.demo.loader import demo_load
from grading.models import Paper
from rubrics.models import Contest
from tests.grading.demo.shared import PLANTED_OPEN


def test_dry_run_loads_nothing(db, settings, tmp_path):
    settings.SCANS_DIR = tmp_path / "scans"
    summary = demo_load(dry_run=True, verbosity=0)
    assert (summary["created"], summary["papers"], summary["marks_entered"]) == (True, 10, 145)
    assert (Contest.objects.count(), Paper.objects.count(), User.objects.count()) == (0, 0, 0)
    # Nor leaves a page image behind.
    assert list((tmp_path / "scans").glob("*.png")) == []


def test_finish_grading_loads_the_demo_when_it_is_absent(db):
    summary = demo_finish_grading()
    assert (summary["already_done"], summary["open_discrepancies"]) == (False, PLANTED_OPEN)
