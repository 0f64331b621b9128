"""Answer-sheet covers: one page per contestant and problem, put on top of that answer before
the pile is scanned. Its QR code (`codes.cover_payload`) is what `reading` sorts pages by; the
cover itself is never stored."""

from dataclasses import dataclass

import segno
from django.core.exceptions import ValidationError
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from grading.intake.scans.codes import code_problem, cover_payload
from grading.printing import pdf
from rubrics.models import Contest

TEMPLATE = "scans/pdf/covers.html"


@dataclass(frozen=True)
class Cover:
    problem_number: int
    code: str
    payload: str
    qr_svg: SafeString


def codes_check(codes: list[str]) -> list[str]:
    """The contestant codes, once each, in their order; refuses (every problem as a sentence)
    a code that breaks the codes-only rule, a repeated code, or no code at all."""
    problems, seen = [], set()
    for line, code in enumerate(codes, start=1):
        why = code_problem(code)
        if why:
            problems.append(f"Code {line}, “{code}”: {why}.")
        elif code in seen:
            problems.append(f"Code {line}, “{code}”, comes twice.")
        seen.add(code)
    if not codes:
        problems.append("There are no contestant codes.")
    if problems:
        raise ValidationError(problems)
    return list(codes)


def covers_html(*, contest: Contest, codes: list[str]) -> str:
    covers = []
    for code in codes_check(codes):
        for problem in contest.problems.all():
            payload = cover_payload(
                contest_slug=contest.slug, problem_number=problem.number, code=code
            )
            qr = segno.make(payload, error="m")
            # segno writes the SVG itself from the payload alone: nothing of ours to escape.
            svg = mark_safe(qr.svg_inline(scale=4, omitsize=False))  # noqa: S308
            covers.append(Cover(problem.number, code, payload, svg))
    return render_to_string(
        TEMPLATE,
        {
            "covers": covers,
            "contest_name": contest.name,
            # Where contestants write their code is where the import masks (one setting).
            "mask_every_page": contest.scan_mask_pages == Contest.MaskPages.EVERY,
            "mask_percent": f"{contest.scan_mask_percent.normalize():f}",
            "generator": pdf.GENERATOR,
            "font_url": pdf.FONT_DIR.as_uri(),
        },
    )


def covers_pdf(*, contest: Contest, codes: list[str]) -> bytes:
    """Every contestant's cover for every problem of the contest, as one PDF (contestant by
    contestant, problems in order)."""
    if not contest.problems.exists():
        raise ValidationError(f"{contest.name} has no problems yet: load its problem set first.")
    return pdf.render_pdf(covers_html(contest=contest, codes=codes))
