"""The comparison grid's body, one `format_html` per row: a problem of 15 criteria × 8 jurors
has 120 cells per paper, and at a few hundred papers building each cell's pieces (the template
language's dozen nodes per cell, then a `format_html` per piece) made the page several times
slower than the reads behind it. Most cells of a page look alike (the same criterion, status
and mark), so each distinct cell is built once by `format_html`, which escapes every value that
goes into it, and reused; a row joins its cells' markup and is built by one `format_html` more.
Only the fixed markup below is marked safe."""

from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
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
# A juror's figure as a key of the pieces: pending, nothing (None), or the points.
_PENDING_KEY = "pending"


def _value_key(value):
    return _PENDING_KEY if value.pending else value.points


def _value(key):
    if key is _PENDING_KEY:
        return _PENDING
    return "–" if key is None else pts(key)


class _GridPieces:
    """The markup of one page's grid, each distinct piece built once: a cell's `<td>` is a
    function of its criterion, status, mark, comments and scheme versions (and, for the link in
    a criterion's first column, of the paper's label, put in per row)."""

    def __init__(self, *, discussion: str):
        # The discussion's link, split around the label: the part after it takes the code.
        self._before_label, _, self._after_label = discussion.partition(_LABEL)
        self._pieces: dict[tuple, object] = {}

    def tag(self, item, met: str):
        """What the last juror's column adds under the marks: the chair's or the discussion's
        value, or the status where the marks alone do not tell it, the number of comments,
        and whether marks given under different scheme versions meet here (`met`, listed above
        the grid too)."""
        cell = item["cell"]
        if cell.decided_by_chair:
            kind, text = "chair", pts(cell.points)
        elif cell.status == CellStatus.CONSENSUS:
            kind, text = "discussed", pts(cell.points)
        elif cell.is_open or not (cell.plainly_agreed or item["waiting"]):
            kind, text = "status", cell.status.label
        else:
            kind, text = "", ""
        comments = item["comments"]
        if not (kind or comments or met):
            return ""
        key = ("tag", kind, text, comments, met)
        piece = self._pieces.get(key)
        if piece is None:
            piece = self._pieces[key] = self._tag(kind, text, comments, met)
        return piece

    @staticmethod
    def _tag(kind: str, text: str, comments: int, met: str):
        if kind == "chair":
            tag = format_html('<span class="tag chair-mark">chair {}</span>', text)
        elif kind == "discussed":
            tag = format_html('<span class="tag">discussed {}</span>', text)
        elif kind:
            tag = format_html('<span class="tag">{}</span>', text)
        else:
            tag = ""
        if comments:
            tag = format_html(
                '{} <span class="tag ncomments">{}<span class="visually-hidden">comments: </span>'
                "{}</span>",
                tag,
                _COMMENT_ICON,
                comments,
            )
        if met:
            tag = format_html('{} <span class="tag versions" title="{}">versions</span>', tag, met)
        return tag

    def marks(self, item, label: str) -> list[str]:
        """One criterion's `<td>`s, a juror's mark in each: the first links to the cell's
        discussion, titled with its status; the last carries the tag. `label`: the paper's,
        quoted for a link (letters, digits, `%` and `_.-~` only: nothing to escape)."""
        cell, code = item["cell"], item["criterion"].code
        status = cell.status
        comments = item["comments"]
        met = cell.versions_met
        tag = self.tag(item, met)
        marks = item["marks"]
        last = len(marks) - 1
        pieces = []
        for index, mark in enumerate(marks):
            end = tag if index == last else ""
            if index == 0:
                key = ("first", code, status, comments, met, _value_key(mark), end)
                first = self._pieces.get(key)
                if first is None:
                    first = self._pieces[key] = self._first_td(*key[1:])
                # The link's label, between the two halves of the piece.
                pieces.extend((first[0], label, first[1]))
                continue
            key = ("td", code, status, _value_key(mark), end)
            piece = self._pieces.get(key)
            if piece is None:
                piece = self._pieces[key] = format_html(
                    '<td class="num {}" data-criterion="{}">{}{}</td>',
                    status.value,
                    code,
                    _value(key[3]),
                    end,
                )
            pieces.append(piece)
        return pieces

    def _first_td(self, code, status, comments, met, value, end):
        """A criterion's first `<td>`, in two halves around the label of its link."""
        title = status.label
        if comments:
            title += ", " + ngettext("%(n)d comment", "%(n)d comments", comments) % {"n": comments}
        if met:
            title += f", {met}"
        return (
            format_html(
                '<td class="num {} first" data-criterion="{}"><a href="{}',
                status.value,
                code,
                self._before_label,
            ),
            format_html(
                '{}" title="{}">{}</a>{}</td>',
                self._after_label.replace(_CODE, quote(code, safe="")),
                title,
                _value(value),
                end,
            ),
        )

    def total(self, index: int, total) -> SafeString:
        key = ("total", index == 0, _value_key(total))
        piece = self._pieces.get(key)
        if piece is None:
            piece = self._pieces[key] = format_html(
                '<td class="num total{}">{}</td>', " first" if index == 0 else "", _value(key[2])
            )
        return piece


def _row(row, *, pieces: _GridPieces, paper_page: str, straddle_shown: bool):
    label = quote(row.label, safe="")
    cells = [piece for item in row.cells for piece in pieces.marks(item, label)]
    cells.extend(pieces.total(index, total) for index, total in enumerate(row.juror_totals))
    # Escaped markup, and the quoted label in the links (nothing in it to escape).
    return format_html(
        '<tr id="paper-{}"><th scope="row"><a href="{}" class="label">{}</a>{}</th>{}</tr>\n',
        row.label,
        paper_page.replace(_LABEL, label),
        row.label,
        _STRADDLE if straddle_shown and row.straddle else "",
        mark_safe("".join(cells)),
    )


@register.simple_tag
def comparison_grid_rows(data, contest, problem, straddle_shown: bool, rows=None):
    """The grid's `<tr>`s: each paper's label, each criterion's marks by juror (the first a link
    to the cell's discussion, titled with its status), the status tag, and the jurors' totals.
    `rows`: the rows of the page shown, by default every row of `data`."""
    rows = data.rows if rows is None else rows
    if not rows:
        return _NO_ROW
    pieces = _GridPieces(
        discussion=reverse("discussion", args=[contest.slug, problem.number, _LABEL, _CODE])
    )
    paper_page = reverse("paper_detail", args=[contest.slug, problem.number, _LABEL])
    return mark_safe(
        "".join(
            _row(row, pieces=pieces, paper_page=paper_page, straddle_shown=straddle_shown)
            for row in rows
        )
    )
