"""The browser tests' live server answers requests in parallel threads (a page, its charts, the
other open pages' polls). Django's in-memory SQLite test database makes them all share the test
thread's one connection, and its documentation warns that simultaneous queries through it "may
sometimes randomly cause the tests to fail": a CI run once saw the organizer logged out after
the analysis page, and a chart that never arrived. tests/conftest.py puts the SQLite test
database in a file instead, so that each thread has its own connection, as in production."""

from django.db import connection


def test_the_live_server_reads_the_database_through_connections_of_its_own(live_server):
    assert live_server.thread.connections_override == {}
    assert not (connection.vendor == "sqlite" and connection.is_in_memory_db())
