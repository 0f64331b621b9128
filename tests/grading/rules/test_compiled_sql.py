"""`grading.rules.compiled_sql`: a query's SQL built once per shape, its values bound anew. The
autosave's lookup and the conflicts it asks give what the ORM's own query gives, for every
juror and cell, when a fact changes between two saves, and a query whose values the ORM
rewrites is refused where it is first built rather than answered wrongly."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.marking.selectors import _own_cell_lookup, own_cell
from grading.models import DeclaredConflict, JurorProfile, Mark, PaperLabel
from grading.rules import compiled_sql, conflicts, roles
from rubrics.models import Criterion
from tests.factories import assign, make_contest, make_delegation, make_user


def _every_cell(contest):
    return [
        (problem.number, label, criterion.code)
        for problem in contest.problems.order_by("number")
        for label in PaperLabel.objects.filter(problem=problem).values_list("label", flat=True)
        for criterion in Criterion.objects.filter(problem=problem)
    ]


def _as_the_orm_reads_it(juror, contest, number, label, code):
    delegations = tuple(sorted(conflicts.conflicted_delegations(juror.pk)))
    return list(
        _own_cell_lookup(
            delegations,
            juror=juror.pk,
            contest=contest.slug,
            problem=number,
            code=code,
            label=label,
        )
    )


def test_the_lookup_finds_what_the_orm_finds_for_every_juror_and_cell(db):
    contest = make_contest(problems=2, papers=3)
    ana, ben = make_user("ana", roles.JUROR), make_user("ben", roles.JUROR)
    chair = make_user("chen", roles.CHAIR)
    assign(contest, [ana], problems=[1])
    assign(contest, [ana, ben], problems=[2])
    make_delegation(
        contest, "EST", papers=list(contest.papers.order_by("pk")[:1]), country="Estonia"
    )
    JurorProfile.objects.create(user=ben, country="estonia ")
    found = 0
    for user in (ana, ben, chair):
        for number, label, code in _every_cell(contest):
            expected = _as_the_orm_reads_it(user, contest, number, label, code)
            mark = own_cell(
                juror=user, contest_slug=contest.slug, problem_number=number, label=label, code=code
            )
            assert ([(mark.pk,)] if mark else []) == expected, (user, number, label, code)
            found += bool(mark)
    # ana marks every cell of her three papers in two problems; ben those of problem 2 but
    # the Estonian contestant's; the chair none.
    assert found == 3 * 2 * 2 + 2 * 2
    assert (
        own_cell(juror=ana, contest_slug=contest.slug, problem_number=1, label="nothing", code="A1")
        is None
    )
    assert (
        own_cell(juror=ana, contest_slug="another", problem_number=1, label=label, code=code)
        is None
    )


def test_a_fact_that_changes_between_two_saves_changes_the_next_lookup(db):
    contest = make_contest(problems=1, papers=2)
    ana = make_user("ana", roles.JUROR)
    assign(contest, [ana], problems=[1])
    paper = contest.papers.order_by("pk").first()
    label = PaperLabel.objects.get(paper=paper).label
    delegation = make_delegation(contest, "LAT", papers=[paper], country="Latvia")

    def lookup():
        return own_cell(
            juror=ana, contest_slug=contest.slug, problem_number=1, label=label, code="A1"
        )

    assert lookup() is not None
    profile = JurorProfile.objects.create(user=ana, country="Latvia")
    assert lookup() is None
    profile.country = "Lithuania"
    profile.save()
    assert lookup() is not None
    DeclaredConflict.objects.create(juror=ana, paper=paper, reason="coached them")
    assert lookup() is None
    DeclaredConflict.objects.all().delete()
    delegation.leaders.add(ana)
    assert lookup() is None
    delegation.leaders.remove(ana)
    assert lookup() is not None
    ana.groups.clear()
    assert lookup() is None


def test_the_lookup_is_built_once_and_asks_three_queries(db):
    contest = make_contest(problems=1, papers=2)
    ana = make_user("ana", roles.JUROR)
    assign(contest, [ana], problems=[1])
    cells = _every_cell(contest)
    own_cell(juror=ana, contest_slug=contest.slug, problem_number=1, label=cells[0][1], code="A1")
    built = compiled_sql._compiled.cache_info().misses
    for _, label, code in cells:
        with CaptureQueriesContext(connection) as captured:
            mark = own_cell(
                juror=ana, contest_slug=contest.slug, problem_number=1, label=label, code=code
            )
        assert mark is not None and mark.criterion.code == code
        assert len(captured) == 3
    assert compiled_sql._compiled.cache_info().misses == built


def test_a_value_the_orm_rewrites_is_refused_where_the_query_is_built(db):
    def by_code_like(shape, *, code):
        return Criterion.objects.filter(code__icontains=code).values_list("pk")

    with pytest.raises(ValueError, match="by_code_like: a parameter changes with the values"):
        compiled_sql.rows(by_code_like, code="A1")


def test_a_constant_of_the_query_equal_to_a_stand_in_stays_the_querys_own(db):
    contest = make_contest(problems=1, papers=1)
    stand_in = 30011  # the first integer's stand-in in the first draft

    def marks_of(shape, *, juror):
        return Mark.objects.filter(sheet__juror=juror).exclude(version=stand_in).values_list("pk")

    ana = make_user("ana", roles.JUROR)
    assign(contest, [ana], problems=[1])
    assert (
        len(compiled_sql.rows(marks_of, juror=ana.pk))
        == Mark.objects.filter(sheet__juror=ana).count()
        == 2
    )


def test_only_strings_and_integers_are_bound(db):
    def by_flag(shape, *, flag):
        return Mark.objects.filter(reopened_by__isnull=flag).values_list("pk")

    with pytest.raises(TypeError, match="only strings and integers"):
        compiled_sql.rows(by_flag, flag=True)
