"""The chair's queue's rows: one cell of the queue as one piece of HTML.

The queue lists every open cell of the contest, some 600 at 255 papers; as a template each row
resolved some forty variables and filters. A row built here costs a few `format_html` calls.
The row is the template's as it was, to the byte: every value escaped as the template escaped
it."""

from django import template
from django.template.defaultfilters import urlencode
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from grading.rules.domain import points_text

register = template.Library()

STRADDLES = mark_safe(' <span class="flag straddle">straddles</span>')


@register.simple_tag(takes_context=True)
def queue_row(context, item, number: int):
    """The `<tr>` of one `QueueItem`, the `number`th of the queue: the cell's problem, the
    paper's label (leading to the paper beside the criterion's marks), the criterion, each
    juror's mark, the spread, the paper's provisional total and nearest cut-off, the comments
    and the link to the cell's discussion, with the queue's filters (`queue`)."""
    slug = context["contest"].slug
    cell, problem = item.cell, item.problem
    criterion = cell.criterion
    reading = reverse("comparison", args=[slug, problem.number])
    discussion = reverse("discussion", args=[slug, problem.number, item.label, criterion.code])
    queue = context["queue"]
    return format_html(
        '<tr data-label="{}" data-criterion="{}">\n      <td>{}</td>\n      <td>{}</td>\n      '
        '<td><a class="label read-paper" href="{}?criterion={}&amp;read={}#reader" title="Read '
        "the paper (its pages or its answers) beside the criterion's marks\">{}</a>{}</td>\n      "
        '<td>{} <small>/ {}</small> <span class="criterion-title">{}</span>{}</td>\n      '
        '<td>{}</td>\n      <td class="num">{}</td>\n      <td class="num">{}</td>\n      '
        '<td>{}</td>\n      <td class="num">{}</td>\n      '
        '<td><a class="open-cell" href="{}{}">{}</a></td>\n    </tr>',
        item.label, criterion.code, number, problem.code,
        reading, urlencode(criterion.code), urlencode(item.label), item.label,
        STRADDLES if item.paper.straddle else "",
        criterion.code, points_text(criterion.points), criterion.title,
        "" if cell.is_open else format_html(' <small class="status">{}</small>', cell.status.label),
        format_html_join(
            " · ", "{} {}", ((name, points_text(points)) for name, points in item.marks)
        ),
        points_text(cell.spread), points_text(item.paper.total),
        format_html("{} ({} away)", item.nearest, points_text(item.distance))
        if item.nearest
        else "",
        item.comments,
        discussion, format_html("?{}", queue) if queue else "",
        "Discuss / decide" if cell.is_open else "Open",
    )  # fmt: skip
