"""Each part registers the work of its own kinds of job (its AppConfig's `ready()`), so that the
jobs part imports none of them: a kind nobody registered would fail only when a worker ran it."""

from grading.jobs import running
from grading.models import Job


def test_every_kind_of_job_has_its_work_registered_by_its_part():
    assert sorted(running._WORK) == sorted(Job.Kind.values)
    assert all(callable(work) for work in running._WORK.values())
