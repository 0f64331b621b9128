"""Queries asked on every request of a hot path, their SQL built by the ORM once per shape and
process and only their values bound anew.

The ORM builds a query's SQL afresh on every call, and for the queries that carry a rule
(`access.markable_marks`, `conflicts.conflicted_delegations`, the live pages' change tokens)
that costs far more than the database takes to answer: the autosave's lookup of its cell spent
5.9 ms building SQL that SQLite answered in 0.13 ms (issue 32). The rule stays in the queryset
that states it; this module only remembers the SQL that queryset compiles to.

`rows(build, shape, **values)` calls `build(shape, **placeholders)` once for each `shape` (what
changes the SQL's text: an IN list's members, say) and database, with a placeholder in place of
each value, finds the placeholders among the compiled query's parameters, and from then on binds
the values in their places. A value the ORM would rewrite rather than pass on as it is (an
`iexact`, a `LIKE`, a value made into an IN list) would leave its placeholder unfound: that is
refused at once, where the query is first built, never answered wrongly."""

from collections.abc import Callable, Hashable
from functools import lru_cache

from django.core.exceptions import EmptyResultSet
from django.db import connection


def _placeholders(kinds: tuple[tuple[str, type], ...], draft: int) -> dict[str, str | int]:
    """A stand-in of its type for each named value, different in each `draft` (0 or 1).
    Integers stay small and positive: Django answers a lookup with an integer beyond its
    field's range (a problem's number, say) by matching nothing, without any SQL."""
    placeholders = {}
    for index, (name, kind) in enumerate(kinds):
        if kind is int:
            placeholders[name] = 30011 + 100 * draft + index
        elif kind is str:
            placeholders[name] = f"\x00compiled-sql-{draft}:{name}\x00"
        else:
            raise TypeError(f"{name}: only strings and integers are bound anew, not {kind}")
    return placeholders


@lru_cache(maxsize=1024)
def _compiled(
    build: Callable, shape: Hashable, kinds: tuple[tuple[str, type], ...], vendor: str
) -> tuple[str | None, tuple, tuple]:
    """(SQL, its parameters, the name bound at each parameter or None) of `build`'s query for
    `shape`; SQL None when the query can match nothing.

    The query is built twice, with two different stand-ins for each value: a parameter that
    holds one value's stand-in in both drafts is that value's place, and one equal in both is
    the query's own (so that a constant of the query that happens to equal a stand-in is never
    taken for it). Both drafts must compile to the same SQL."""
    drafts = []
    for draft in (0, 1):
        placeholders = _placeholders(kinds, draft)
        try:
            sql, params = build(shape, **placeholders).query.sql_with_params()
        except EmptyResultSet:
            sql, params = None, ()
        drafts.append((placeholders, sql, tuple(params)))
    (first, sql, params), (second, other_sql, other_params) = drafts
    if sql != other_sql or len(params) != len(other_params):
        raise ValueError(f"{build.__qualname__}: its SQL changes with the values bound into it.")
    if sql is None:
        return None, (), ()
    bound = []
    for a, b in zip(params, other_params, strict=True):
        names = [name for name in first if first[name] == a and second[name] == b]
        if a != b and not names:
            raise ValueError(f"{build.__qualname__}: a parameter changes with the values.")
        bound.append(names[0] if names else None)
    missing = set(first) - set(bound)
    if missing:
        raise ValueError(
            f"{build.__qualname__}: the values {sorted(missing)} do not reach the SQL as "
            "parameters of their own, so they cannot be bound anew."
        )
    return sql, params, tuple(bound)


def rows(build: Callable, shape: Hashable = (), **values) -> list[tuple]:
    """The rows `build(shape, **values)` (a queryset of `values_list`) reads, its SQL compiled
    once per shape and database. `values`: strings and integers only."""
    kinds = tuple(sorted((name, type(value)) for name, value in values.items()))
    sql, params, bound = _compiled(build, shape, kinds, connection.vendor)
    if sql is None:
        return []
    params = [values[name] if name else param for name, param in zip(bound, params, strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()
