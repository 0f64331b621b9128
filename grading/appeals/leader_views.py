"""A team leader's pages (grading/appeals/leader_urls.py): their delegation's contestants with
the agreed points per problem, the total, rank and medal as published; one contestant's problem
with its scanned pages, the grading scheme and the agreed points per criterion; and those
pages' images, by the paper's public code (never a juror's label).

Who may read what is `appeal_access.may_read_as_leader`'s: another delegation's contestant, an AI
paper and anyone who leads no delegation of the contest get a 404, as for a code that does not
exist; before the results are published, the leader's own pages say so."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from grading.appeals import leader_selectors as selectors
from grading.models import ScanPage
from grading.papers.page_views import CACHE_CONTROL
from grading.papers.scan_pages import scan_file
from grading.rules import appeal_access
from rubrics.models import Contest


def appeal_url(user, *, paper, problem) -> str | None:
    """The link to file an appeal on this paper's problem, for a leader who may appeal now
    (provisional results); else None."""
    if not appeal_access.may_appeal(user, paper):
        return None
    return reverse(
        "appeal_file",
        kwargs={
            "contest": paper.contest.slug,
            "code": paper.public_code,
            "problem": problem.number,
        },
    )


def _contest(slug: str) -> Contest:
    return get_object_or_404(Contest, slug=slug)


@login_required
@require_GET
def leader_delegation(request, contest: str):
    page = selectors.delegation_page(request.user, _contest(contest))
    return render(request, "grading/leader_delegation.html", {"page": page})


@login_required
@require_GET
def leader_contestant_problem(request, contest: str, public_code: str, problem: int):
    detail = selectors.contestant_problem(
        request.user, _contest(contest), public_code=public_code, number=problem
    )
    scan_pages = [
        {
            "position": page.position,
            "url": reverse(
                "leader_scan_page",
                args=[contest, public_code, problem, page.position],
            ),
            "width": page.width,
            "height": page.height,
        }
        for page in detail.scan_pages
    ]
    return render(
        request,
        "grading/leader_contestant_problem.html",
        {
            "detail": detail,
            "contest": detail.contest,
            "problem": detail.problem,
            "scan_pages": scan_pages,
            "problems": detail.contest.problems.order_by("number"),
            "appeal_url": appeal_url(request.user, paper=detail.paper, problem=detail.problem)
            if detail.published
            else None,
        },
    )


@login_required
@require_GET
def leader_scan_page(request, contest: str, public_code: str, problem: int, position: int):
    """One scanned page of the leader's own contestant, once the results are published."""
    paper = selectors.leader_paper(request.user, _contest(contest), public_code)
    if not appeal_access.may_read_as_leader(request.user, paper):
        raise Http404("No such page.")
    page = ScanPage.objects.filter(paper=paper, problem__number=problem, position=position).first()
    path = scan_file(page) if page is not None else None
    if path is None:
        raise Http404("This paper has no such page.")
    response = HttpResponse(path.read_bytes(), content_type="image/png")
    response["Cache-Control"] = CACHE_CONTROL
    return response
