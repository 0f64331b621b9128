"""The comparison grid's body as `format_html` pieces: a problem of 20 criteria × 3 jurors has
60 cells per paper, and at a few hundred papers the template language's cost per node (a dozen
nodes per cell) made the page several times slower than the reads behind it. Every value goes
through `format_html`, which escapes it; only the fixed markup below is marked safe."""

from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import ngettext

from grading.rules.domain import CellStatus
from grading.rules.domain import points_text as pts

register = template.Library()

# Reversed once per page; `~` is kept as is by `reverse` and never part of a slug or a label.
_LABEL, _CODE = "~label~", "~code~"
# Fixed markup, with nothing interpolated into it.
_COMMENT_ICON = mark_safe(
    '<svg viewBox="0 0 16 16" width="11" height="11" aria-hidden="true" focusable="false">'
    '<path d="M2 2h12v9H7l-4 3v-3H2z" fill="currentColor"/></svg>'
)
_STRADDLE = mark_safe(
    ' <span class="flag straddle" title="Depending on which juror\'s marks are taken, this'
    " paper's total falls on different sides of a medal cut-off.\">straddles</span>"
)
_PENDING = mark_safe('<span class="pending-mark">pending</span>')
_NO_ROW = mark_safe('<tr><td colspan="99">No paper matches these filters.</td></tr>')


def _value(value):
    if value.pending:
        return _PENDING
    return "–" if value.points is None else pts(value.points)


def _tag(item, met: str):
    """What the last juror's column adds under the marks: the chair's or the discussion's value,
    or the status where the marks alone do not tell it, the number of comments, and whether
    marks given under different scheme versions meet here (`met`, listed above the grid too)."""
    cell = item["cell"]
    if cell.decided_by_chair:
        tag = format_html('<span class="tag chair-mark">chair {}</span>', pts(cell.points))
    elif cell.status == CellStatus.CONSENSUS:
        tag = format_html('<span class="tag">discussed {}</span>', pts(cell.points))
    elif cell.is_open or not (cell.plainly_agreed or item["waiting"]):
        tag = format_html('<span class="tag">{}</span>', cell.status.label)
    else:
        tag = ""
    if item["comments"]:
        tag = format_html(
            '{} <span class="tag ncomments">{}<span class="visually-hidden">comments: </span>'
            "{}</span>",
            tag,
            _COMMENT_ICON,
            item["comments"],
        )
    if met:
        tag = format_html('{} <span class="tag versions" title="{}">versions</span>', tag, met)
    return tag


def _marks(item, label: str, discussion: str):
    """One criterion's `<td>`s, a juror's mark in each: the first links to the cell's
    discussion, titled with its status; the last carries the tag."""
    cell, code = item["cell"], item["criterion"].code
    status = cell.status.value
    href = discussion.replace(_LABEL, label).replace(_CODE, quote(code, safe=""))
    title = cell.status.label
    if item["comments"]:
        n = item["comments"]
        title += ", " + ngettext("%(n)d comment", "%(n)d comments", n) % {"n": n}
    met = cell.versions_met
    if met:
        title += f", {met}"
    last = len(item["marks"]) - 1
    tag = _tag(item, met)
    for index, mark in enumerate(item["marks"]):
        end = tag if index == last else ""
        if index == 0:
            yield format_html(
                '<td class="num {} first" data-criterion="{}"><a href="{}" title="{}">{}</a>'
                "{}</td>",
                status,
                code,
                href,
                title,
                _value(mark),
                end,
            )
        else:
            yield format_html(
                '<td class="num {}" data-criterion="{}">{}{}</td>', status, code, _value(mark), end
            )


def _row(row, *, discussion: str, paper_page: str, straddle_shown: bool):
    label = quote(row.label, safe="")
    cells = (piece for item in row.cells for piece in _marks(item, label, discussion))
    totals = (
        (" first" if index == 0 else "", _value(total))
        for index, total in enumerate(row.juror_totals)
    )
    return format_html(
        '<tr id="paper-{}"><th scope="row"><a href="{}" class="label">{}</a>{}</th>{}{}</tr>\n',
        row.label,
        paper_page.replace(_LABEL, label),
        row.label,
        _STRADDLE if straddle_shown and row.straddle else "",
        format_html_join("", "{}", ((piece,) for piece in cells)),
        format_html_join("", '<td class="num total{}">{}</td>', totals),
    )


@register.simple_tag
def comparison_grid_rows(data, contest, problem, straddle_shown: bool):
    """The grid's `<tr>`s: each paper's label, each criterion's marks by juror (the first a link
    to the cell's discussion, titled with its status), the status tag, and the jurors' totals."""
    discussion = reverse("discussion", args=[contest.slug, problem.number, _LABEL, _CODE])
    paper_page = reverse("paper_detail", args=[contest.slug, problem.number, _LABEL])
    if not data.rows:
        return _NO_ROW
    return format_html_join(
        "",
        "{}",
        (
            (
                _row(
                    row, discussion=discussion, paper_page=paper_page, straddle_shown=straddle_shown
                ),
            )
            for row in data.rows
        ),
    )
