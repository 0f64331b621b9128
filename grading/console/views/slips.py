"""Sign-in slips: a PDF with one page per juror who has not signed in yet, with their name,
username, one-time link as text and as a QR code (an inline SVG from segno), rendered by
WeasyPrint with the printouts' fonts (`grading.printing.pdf`)."""

from dataclasses import dataclass

import segno
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from grading.console import people as people_service
from grading.console import people_selectors
from grading.console.views.guards import (
    contest_for_organizer,
    organizer_required,
    person_for_organizer,
)
from grading.printing import pdf
from grading.rules import roles

User = get_user_model()


@dataclass(frozen=True)
class Slip:
    name: str
    username: str
    link: str
    qr_svg: str
    problems: str
    # The delegations the person leads, by code ("" for a juror only).
    delegations: str = ""
    # "Language specialist" with the languages they read, for a specialist ("" otherwise).
    specialist: str = ""


def _slips_pdf(request, people, *, heading: str, filename: str) -> HttpResponse:
    now_expiry = people_service.link_expiry()
    slips = []
    for person, problems, *led in people:
        link = request.build_absolute_uri(people_service.sign_in_path(person))
        qr = segno.make(link, error="m")
        slips.append(
            Slip(
                name=person.get_full_name() or person.username,
                username=person.username,
                link=link,
                # segno writes the SVG itself from the link alone: nothing of ours to escape.
                qr_svg=mark_safe(qr.svg_inline(scale=4, omitsize=False)),  # noqa: S308
                problems=problems,
                delegations=led[0] if led else "",
                specialist=led[1] if len(led) > 1 else "",
            )
        )
    html = render_to_string(
        "console/pdf/slips.html",
        {
            "slips": slips,
            "heading": heading,
            "expires": now_expiry,
            "font_url": pdf.FONT_DIR.as_uri(),
            "generator": pdf.GENERATOR,
        },
    )
    response = HttpResponse(pdf.render_pdf(html), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    # A page of live sign-in links: never kept by a browser or proxy cache.
    response["Cache-Control"] = "no-store"
    return response


@organizer_required
@require_GET
def contest_slips(request, contest: str):
    """Every juror of the contest's grading groups, every leader of its delegations and every
    language specialist (who help in any contest) who has not signed in yet (or those named by
    `?added=`), one page each."""
    contest_obj = contest_for_organizer(contest)
    jurors = (
        User.objects.filter(
            Q(grading_groups__problem__contest=contest_obj)
            | Q(delegations_led__contest=contest_obj)
            | Q(groups__name=roles.SPECIALIST),
            is_active=True,
        )
        .distinct()
        .order_by("username")
    )
    only = request.GET.getlist("added")
    if only:
        jurors = jurors.filter(username__in=only)
    numbers = people_selectors.group_problem_numbers(contest=contest_obj)
    led = people_selectors.led_delegation_codes(contest=contest_obj)
    specialists = people_selectors.specialist_languages()
    people = [
        (
            juror,
            ", ".join(f"P{n}" for n in numbers.get(juror.pk, [])),
            ", ".join(led.get(juror.pk, [])),
            specialists.get(juror.pk, ""),
        )
        for juror in jurors
        if people_service.awaits_sign_in(juror)
    ]
    if not people:
        messages.info(
            request,
            f"No juror of {contest_obj.name} is waiting for a sign-in link: everyone has set "
            "a password. Reset a person's password for a new link.",
        )
        return redirect("console:people")
    return _slips_pdf(
        request,
        people,
        heading=contest_obj.name,
        filename=f"{contest_obj.slug}-sign-in-slips.pdf",
    )


@organizer_required
@require_GET
def person_slip(request, username: str):
    person = person_for_organizer(request, username)
    if not people_service.awaits_sign_in(person):
        messages.info(
            request,
            f"{person.username} has set a password already; reset it for a new sign-in link.",
        )
        return redirect("console:person", username=person.username)
    specialist = people_selectors.specialist_languages(person).get(person.pk, "")
    return _slips_pdf(
        request,
        [(person, "", "", specialist)],
        heading="Jury",
        filename=f"sign-in-{person.username}.pdf",
    )
