"""What the demo's test modules share: the rows they count and the discrepancies
--finish-grading leaves open."""

from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from grading.models import (
    Assignment,
    GradingGroup,
    Mark,
    MarkEvent,
    Paper,
    PaperLabel,
    Sheet,
    Solution,
)
from rubrics.models import Contest, Criterion, MedalCutoff, Problem, Task

MODELS = (
    User,
    Group,
    Contest,
    MedalCutoff,
    Problem,
    Task,
    Criterion,
    Paper,
    PaperLabel,
    Solution,
    GradingGroup,
    Assignment,
    Sheet,
    Mark,
    MarkEvent,
)


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


# What PLANTS in grading/demo/grading.py leaves open: P1's four disagreements (one on a human
# contestant's paper) and eight of the ten plants (the two one-step plants on P3 A2 are within
# that criterion's tolerance).
PLANTED_OPEN = 12


def signed_in(username: str) -> Client:
    """A browser that signed in on the sign-in page with the demo's password."""
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": "demo"})
    assert (response.status_code, client.session.get("_auth_user_id")) == (
        302,
        str(User.objects.get(username=username).pk),
    )
    return client
