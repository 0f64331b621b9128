"""The comparison grid's body, written in Python: a problem of 20 criteria × 3 jurors has 60
cells per paper, and at a few hundred papers the template language's cost per node (a dozen
nodes per cell) made the page several times slower than the reads behind it."""

from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe

from grading.rules.domain import CellStatus
from grading.rules.domain import points_text as pts

register = template.Library()

# Reversed once per page; `~` is kept as is by `reverse` and never part of a slug or a label.
_LABEL, _CODE = "~label~", "~code~"
_COMMENT_ICON = (
    '<svg viewBox="0 0 16 16" width="11" height="11" aria-hidden="true" focusable="false">'
    '<path d="M2 2h12v9H7l-4 3v-3H2z" fill="currentColor"/></svg>'
)
_STRADDLE = (
    ' <span class="flag straddle" title="Depending on which juror\'s marks are taken, this'
    " paper's total falls on different sides of a medal cut-off.\">straddles</span>"
)
_PENDING = '<span class="pending-mark">pending</span>'


def _value(value) -> str:
    if value.pending:
        return _PENDING
    return "–" if value.points is None else pts(value.points)


def _tag(item) -> str:
    """What the last juror's column adds under the marks: the chair's or the discussion's value,
    or the status where the marks alone do not tell it, and the number of comments."""
    cell = item["cell"]
    if cell.decided_by_chair:
        tag = f'<span class="tag chair-mark">chair {pts(cell.points)}</span>'
    elif cell.status == CellStatus.CONSENSUS:
        tag = f'<span class="tag">discussed {pts(cell.points)}</span>'
    elif cell.is_open or not (cell.plainly_agreed or item["waiting"]):
        tag = f'<span class="tag">{escape(cell.status.label)}</span>'
    else:
        tag = ""
    if item["comments"]:
        tag += (
            f' <span class="tag ncomments">{_COMMENT_ICON}'
            f'<span class="visually-hidden">comments: </span>{item["comments"]}</span>'
        )
    return tag


@register.simple_tag
def comparison_grid_rows(data, contest, problem, straddle_shown: bool) -> str:
    """The grid's `<tr>`s: each paper's label, each criterion's marks by juror (the first a link
    to the cell's discussion, titled with its status), the status tag, and the jurors' totals."""
    discussion = reverse("discussion", args=[contest.slug, problem.number, _LABEL, _CODE])
    paper_page = reverse("paper_detail", args=[contest.slug, problem.number, _LABEL])
    out = []
    for row in data.rows:
        label = quote(row.label, safe="")
        text = escape(row.label)
        out.append(
            f'<tr id="paper-{text}"><th scope="row"><a href="'
            f'{escape(paper_page.replace(_LABEL, label))}" class="label">{text}</a>'
            f"{_STRADDLE if straddle_shown and row.straddle else ''}</th>"
        )
        for item in row.cells:
            cell, code = item["cell"], escape(item["criterion"].code)
            status = cell.status.value
            href = escape(
                discussion.replace(_LABEL, label).replace(
                    _CODE, quote(item["criterion"].code, safe="")
                )
            )
            title = escape(cell.status.label)
            if item["comments"]:
                n = item["comments"]
                title += f", {n} comment{'s' if n != 1 else ''}"
            last = len(item["marks"]) - 1
            for index, mark in enumerate(item["marks"]):
                value = _value(mark)
                if index == 0:
                    out.append(
                        f'<td class="num {status} first" data-criterion="{code}">'
                        f'<a href="{href}" title="{title}">{value}</a>'
                    )
                else:
                    out.append(f'<td class="num {status}" data-criterion="{code}">{value}')
                out.append(f"{_tag(item) if index == last else ''}</td>")
        for index, total in enumerate(row.juror_totals):
            first = " first" if index == 0 else ""
            out.append(f'<td class="num total{first}">{_value(total)}</td>')
        out.append("</tr>\n")
    if not data.rows:
        out.append('<tr><td colspan="99">No paper matches these filters.</td></tr>')
    return mark_safe("".join(out))
