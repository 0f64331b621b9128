"""The contest's navigation for the chair and the organizer: queue, results, every problem's
comparison and comment bank, and the analysis, on each of the contest's resolution pages."""

from django import template

from grading.rules import access, bank_access

register = template.Library()


@register.inclusion_tag("grading/_contest_nav.html", takes_context=True)
def contest_nav(context, contest, problems, here=""):
    """`{% contest_nav contest problems here %}`: `problems` are the contest's problems (the
    page's selector has read them), `here` names the current page ("queue", "results",
    "analysis", a problem's number or "calibration-P<N>"). Renders nothing for a juror, whose pages are their
    problems' sheets and comparisons."""
    user = context["request"].user
    return {
        "show": access.reads_every_paper(user),
        "queue": access.may_decide(user),
        "results": access.may_read_results(user),
        "banks": bank_access.may_curate_bank(user),
        # Each problem's calibration round (grading/calibration/), led by the chair.
        "calibrate": access.may_lead_calibration(user),
        "contest": contest,
        "problems": problems,
        "here": str(here),
    }
