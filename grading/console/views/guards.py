"""Who may open a console page: the access decorator and lookups every console view uses."""

from functools import wraps

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404

from grading.rules import access
from rubrics.models import Contest


def organizer_required(view):
    """Log-in first, then a 404 for anyone who may not run a contest: the console's pages are
    not even acknowledged to jurors and the chair."""

    @login_required
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not access.may_run_contest(request.user):
            raise Http404("No such page.")
        return view(request, *args, **kwargs)

    return wrapped


def contest_for_organizer(slug: str) -> Contest:
    return get_object_or_404(Contest, slug=slug)


def person_for_organizer(request, username: str):
    """The person, or a 404 for one this organizer may not manage (a superuser, for an
    organizer who is not one)."""
    person = get_object_or_404(get_user_model(), username=username)
    if not access.may_manage_person(request.user, person):
        raise Http404("No such person.")
    return person
