"""The scheduler keeps a module that builds once on one worker and spreads every other test
(tests/scheduling.py)."""

from pathlib import Path

from tests.scheduling import ModulesThatBuildOnceStayTogether, builds_once

ROOT = Path(__file__).resolve().parents[1]


def test_a_module_with_a_module_scoped_fixture_builds_once_and_others_do_not(tmp_path):
    shared = tmp_path / "test_shared.py"
    shared.write_text('import pytest\n\n@pytest.fixture(scope="module")\ndef demo():\n    pass\n')
    classy = tmp_path / "test_classy.py"
    classy.write_text('from pytest import fixture\n\n@fixture(scope="class")\ndef x():\n    pass\n')
    plain = tmp_path / "test_plain.py"
    plain.write_text(
        'import pytest\n\n@pytest.fixture\ndef x():\n    """scope="module" in words"""\n'
    )
    session = tmp_path / "test_session.py"
    session.write_text('import pytest\n\n@pytest.fixture(scope="session")\ndef x():\n    pass\n')
    assert [builds_once(path) for path in (shared, classy, plain, session)] == [
        True,
        True,
        False,
        False,
    ]


def test_the_modules_of_this_suite_that_build_once_are_one_unit_of_work_and_no_other():
    scheduler = object.__new__(ModulesThatBuildOnceStayTogether)
    scheduler.rootpath = ROOT
    nodeids = [
        "tests/browser/test_serve.py::test_make_serve_serves_the_site_with_hashed_compressed_static_files_under_the_csp",
        "tests/browser/test_serve.py::test_a_stopped_task_worker_is_started_again_while_the_site_keeps_serving",
        "tests/test_demo_anonymity_crawl.py::test_no_demo_identity_is_reachable_by_a_juror[juror1]",
        "tests/test_permission_matrix.py::test_each_role_gets_the_expected_status_and_refused_requests_write_nothing[home]",
        "tests/grading/results/test_results.py::test_the_best_medal_whose_minimum_the_total_reaches_is_given",
        "tests/grading/marking/test_sheet.py::test_sheet_shows_one_row_per_assigned_paper_by_label_with_criteria_headers",
        "tests/grading/marking/test_sheet.py::test_only_an_assigned_juror_reaches_a_sheet_of_the_problem",
    ]
    assert [scheduler._split_scope(nodeid) for nodeid in nodeids] == [
        "tests/browser/test_serve.py",
        "tests/browser/test_serve.py",
        "tests/test_demo_anonymity_crawl.py",
        "tests/test_permission_matrix.py",
        "tests/grading/results/test_results.py",
        nodeids[5],
        nodeids[6],
    ]
