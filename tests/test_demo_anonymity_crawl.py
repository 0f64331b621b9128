"""Anonymity as access control: as each demo juror, follow every link and download reachable
from the home page and assert that no identity string of the demo appears anywhere (half of the
jurors on each database, see JURORS). The demo is
loaded once for the module (its tests only crawl it; each runs in a savepoint)."""

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from grading.demo.loader import GROUPS
from grading.models import Paper
from tests.crawl import crawl, database_state, response_text, shared_data
from tests.layers import on_postgresql


def identity_strings() -> set[str]:
    """Every identifying string: each paper's identity and every textual metadata value that is
    long enough to mean something (a team name, a repository, a model, a submission id)."""
    strings = set()
    for identity, metadata in Paper.objects.values_list("identity", "metadata"):
        strings.add(identity)
        stack = [metadata]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
            elif isinstance(value, str) and len(value) >= 6:
                strings.add(value)
    return strings


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker, pdf_cache):
    with shared_data(django_db_blocker, pdf_cache):
        call_command("load_demo", verbosity=0)
        yield database_state()


@pytest.fixture(autouse=True)
def _each_test_starts_from_the_demo(db, demo):
    # Shared by the module's tests: a crawl's writes must be rolled back with its savepoint.
    assert database_state() == demo


# Each demo juror is crawled once, on one of the two databases: juror1, juror3 and juror5 on
# PostgreSQL (where the pages' order could differ), juror2, juror4 and juror6 on SQLite. Each
# trio grades all five problems between them (grading/demo/loader.py), so each database crawls
# every page kind of every problem; a juror's own pages are the same queries as a colleague's.
ON_POSTGRESQL = ["juror1", "juror3", "juror5"]
ON_SQLITE = ["juror2", "juror4", "juror6"]
JURORS = ON_POSTGRESQL if on_postgresql() else ON_SQLITE


@pytest.mark.parametrize("jurors", [ON_POSTGRESQL, ON_SQLITE], ids=["postgresql", "sqlite"])
def test_the_jurors_crawled_on_each_database_grade_every_problem_of_the_demo(jurors):
    covered = {n for n, group in GROUPS.items() if set(jurors) & set(group)}
    assert covered == set(GROUPS) == {1, 2, 3, 4, 5}


def test_every_demo_juror_is_crawled_on_one_database():
    demo_jurors = {juror for group in GROUPS.values() for juror in group}
    assert sorted(ON_POSTGRESQL + ON_SQLITE) == sorted(demo_jurors)


@pytest.mark.parametrize("username", JURORS)
def test_no_demo_identity_is_reachable_by_a_juror(client, demo, username):
    secrets = identity_strings()
    assert {"Team Aurora", "Team Ember", "Team Fjord"} <= secrets
    client.force_login(User.objects.get(username=username))
    pages = crawl(client)
    assert len(pages) > 3
    texts = {url: response_text(response) for url, response in pages.items()}
    leaks = {
        url: sorted(secret for secret in secrets if secret in text) for url, text in texts.items()
    }
    assert {url: found for url, found in leaks.items() if found} == {}


def test_the_organizer_crawl_does_reach_identities(client, demo):
    # The same crawl must be able to find an identity where one is shown, or the juror test
    # above would prove nothing.
    client.force_login(User.objects.get(username="organizer"))
    pages = crawl(client, until=lambda response: "Team Aurora" in response_text(response))
    assert any("Team Aurora" in response_text(response) for response in pages.values())
