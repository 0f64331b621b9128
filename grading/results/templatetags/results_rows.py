"""The results page's rows: one paper's row as one piece of HTML.

At 255 papers the table's template, a loop of five problem cells with their filters in each of
the 255 rows, was a third of the page's time; a row built here costs a few `format_html` calls
and grows with the papers only. The row is the template's as it was, to the byte: every value
escaped as the template escaped it, a missing value written as the template wrote it."""

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from grading.rules.domain import points_text

register = template.Library()

# How the template wrote a missing rank: `default_if_none:"—"`.
NO_RANK = "—"
NOT_GRADED = mark_safe(
    '<span title="No submitted mark yet" aria-hidden="true">–</span>'
    '<span class="visually-hidden">no submitted mark yet</span>'
)
NO_ANSWER = mark_safe('<span class="no-answer">no answer</span>')
NOT_PUBLISHED = mark_safe(
    '<td class="num provisional-total"></td><td class="provisional-medal"></td>'
    '<td class="num provisional-rank"></td>\n      <td class="appeal-changes"></td>'
)
PROVISIONAL = mark_safe('<span class="flag provisional">provisional</span>')
STRADDLES = mark_safe(' <span class="flag straddle">straddles a cut-off</span>')


@register.simple_tag(takes_context=True)
def results_row(context, paper):
    """The `<tr>` of one `PaperResult` on the results page: its code (and identity and kind
    where `identities`), its points per problem of `results.problems`, total, medal, rank
    among the humans (where `results.human_count`), its provisional line (where
    `provisional`), flags and the link to its criteria: a paper's cells come when its row is
    opened (htmx), as rendered for every paper they were most of the page's time, and without
    JS the link opens them as a page."""
    results = context["results"]
    code = paper.public_code
    identity = (
        format_html(
            '<td class="identity">{}</td><td class="kind">{}</td>', paper.identity, paper.kind
        )
        if context["identities"]
        else ""
    )
    problems = format_html_join(
        "",
        '<td class="num" data-problem="{}">{} <small class="label">{}</small>{}</td>',
        (_problem_cell(paper, problem.number) for problem in results.problems),
    )
    rank = ""
    if results.human_count:
        rank = format_html(
            '<td class="num">{}</td>\n      <td class="num">{}</td>',
            NO_RANK if paper.rank is None else paper.rank,
            points_text(paper.percentile),
        )
    provisional = context["provisional"]
    published = _provisional_cells(provisional.get(paper.paper_id)) if provisional else ""
    flags = format_html(
        "{}{}", PROVISIONAL if paper.provisional else "", STRADDLES if paper.straddle else ""
    )
    cells_url = reverse("results_paper", args=[context["contest"].slug, code])
    # The row's lines are laid out as the template laid them out.
    return format_html(
        '<tr id="result-{}">\n      <td class="code">{}</td>{}\n      {}\n      '
        '<td class="num total">{}</td>\n      <td class="medal">{}</td>\n      {}\n      {}'
        "\n      <td>{}</td>\n      \n      "
        '<td><details hx-get="{}" hx-trigger="toggle once" hx-target="find .criteria-slot">'
        '<summary>{}</summary><div class="criteria-slot"><a href="{}">Each criterion of {}</a>'
        "</div></details></td>\n    </tr>",
        code, code, identity, problems, points_text(paper.total), paper.medal, rank, published,
        flags, cells_url, len(paper.cells), cells_url, code,
    )  # fmt: skip


def _problem_cell(paper, number: int) -> tuple:
    """The arguments of one problem's `<td>`: its points, "no answer" or a dash, its label
    and where scheme versions meet, the sentence that says so."""
    if number in paper.blank_problems:
        points = NO_ANSWER
    elif number in paper.problems_graded:
        points = points_text(paper.problem_points.get(number))
    else:
        points = NOT_GRADED
    met = paper.versions_met.get(number)
    return (
        number,
        points,
        # The template wrote a paper without a label in the problem as "None".
        paper.labels.get(number),
        format_html(' <small class="versions-met">{}</small>', met) if met else "",
    )


def _provisional_cells(line) -> str:
    """The paper's published provisional total, medal and rank, and what the appeals changed;
    empty cells for a paper that was not published."""
    if line is None:
        return NOT_PUBLISHED
    return format_html(
        '<td class="num provisional-total">{}</td><td class="provisional-medal">{}</td>'
        '<td class="num provisional-rank">{}</td>\n      <td class="appeal-changes">{}</td>',
        points_text(line.total),
        line.medal,
        NO_RANK if line.rank is None else line.rank,
        format_html_join(mark_safe("<br>"), "{}", ((change,) for change in line.changes)),
    )
