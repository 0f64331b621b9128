"""Delegations (a country's team of human contestants) and their team leaders."""

from django.conf import settings
from django.db import models

from rubrics.models import Contest


class Delegation(models.Model):
    """A country's team at a contest: its human contestants' papers (`Paper.delegation`) and its
    team leaders, who see those papers' results once they are provisional and file appeals.
    AI papers belong to no delegation."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="delegations")
    # As the organizers name the team ("EST", "Estonia-1"): what leaders and the console show.
    code = models.CharField(max_length=40)
    name = models.CharField(max_length=200, blank=True)
    # The country its contestants come from, for the assignment's conflicts (no juror grades
    # their own country's contestants); blank: the code is the country.
    # The default is the database's too: rows written by earlier migrations' models go in.
    country = models.CharField(max_length=60, blank=True, db_default="")
    leaders = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="delegations_led", blank=True
    )

    class Meta:
        ordering = ["contest_id", "code"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "code"], name="delegation_unique_code"),
        ]

    def __str__(self):
        return self.name or self.code

    @property
    def country_or_code(self) -> str:
        return self.country or self.code
