"""The page images of a human paper's scanned answer to a problem, for the scan viewer of the
sheet and of the paper page (templates/grading/_scan_viewer.html, static/grading/scans.js).

The URL names only the problem, the paper's label in it and the page's position; the stored
images are already upright, masked over the name band and stripped of metadata (see ScanPage),
and the answer carries no file name. Who may read the paper for the problem, discuss it, or
help with a question on it (`access.may_read_pages`) may see its pages; everyone else gets the
same 404 as for a page that does not exist."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_GET

from grading.models import PaperLabel, ScanPage
from grading.papers.scan_pages import paper_scan_pages, scan_file
from grading.papers.seed_labels import juror_seed
from grading.rules import access
from rubrics.models import Problem

# The page of a paper does not change once imported (a new import writes new files under new
# names), but a reader's browser is the only cache that may keep it: it is theirs to see.
CACHE_CONTROL = "private, max-age=3600"


def scan_viewer_context(*, problem, paper, label: str) -> dict:
    """What `_scan_viewer.html` needs for one paper's pages in one problem: each page's image
    URL and size, in order. An empty list for a paper without scanned pages."""
    pages = paper_scan_pages(problem=problem, paper=paper)
    args = [problem.contest.slug, problem.number, label]
    return {
        "scan_pages": [
            {
                "position": page.position,
                "url": reverse("scan_page_image", args=[*args, page.position]),
                "width": page.width,
                "height": page.height,
            }
            for page in pages
        ],
        # Whether the paper is answered on paper: then the pane shows its pages (or says there
        # are none) instead of typed answers. The kind itself is never written on a page.
        "scanned": bool(pages) or paper.source == paper.Source.HUMAN,
    }


@login_required
@require_GET
def scan_page_image(request, contest: str, problem: int, label: str, position: int):
    problem_obj = get_object_or_404(
        Problem.objects.select_related("contest"), contest__slug=contest, number=problem
    )
    # A language helper is no reader of the problem, but reads the one paper they are asked
    # about (`may_read_pages` below names it).
    if not (
        access.may_read_problem(request.user, problem_obj)
        or access.helps_in(request.user, problem_obj)
    ):
        raise Http404("No such problem.")
    link = PaperLabel.objects.filter(problem=problem_obj, label=label).select_related("paper")
    link = link.first()
    if link is not None:
        paper = (
            link.paper
            if access.may_read_pages(request.user, problem=problem_obj, paper=link.paper)
            else None
        )
    else:
        # A seed's label shows its calibration paper's pages to the seed's juror only.
        seed = juror_seed(user=request.user, problem=problem_obj, label=label)
        paper = seed.calibration_paper.paper if seed is not None else None
    if paper is None:
        raise Http404("No paper has this label in this problem.")
    page = ScanPage.objects.filter(paper=paper, problem=problem_obj, position=position).first()
    path = scan_file(page) if page is not None else None
    if path is None:
        raise Http404("This paper has no such page.")
    response = HttpResponse(path.read_bytes(), content_type="image/png")
    response["Cache-Control"] = CACHE_CONTROL
    return response
