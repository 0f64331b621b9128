"""What makes the admin a door that obeys the project's rules, shared by every ModelAdmin of
`rubrics` and `grading`:

- `FinalGuard`: whatever a final contest owns is read-only (no add into it, no change, no delete,
  inlines included), with the sentence of `contest_life.refuse_if_final`;
- `TraceGuard`: to those who may not trace papers (`access.may_trace_papers`), the admin shows
  no identity and nothing that links a paper across problems (its id, its labels), and refuses
  every filter in the URL that reaches them;
- `RecordAdmin`: records (events) are read by everyone allowed and written by no one here."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.constants import LOOKUP_SEP

from grading import access
from grading.models import Paper
from grading.refusals import ContestFinal
from grading.services.contest_life import refuse_if_final, refuse_if_final_now
from rubrics.models import Contest

# What ties a paper to its system.
IDENTITY_FIELDS = ("identity", "metadata")

# The foreign keys that lead from any model of the two apps towards its contest, tried in this
# order (a mark's sheet and its paper lead to the same contest).
CONTEST_PATH = ("contest", "problem", "paper", "sheet", "mark", "resolution", "criterion", "task")


def contest_of(obj) -> Contest | None:
    """The contest an object belongs to (itself for a contest), or None while it has none yet
    (an add form's blank instance)."""
    while obj is not None and not isinstance(obj, Contest):
        for name in CONTEST_PATH:
            try:
                field = obj._meta.get_field(name)
            except FieldDoesNotExist:
                continue
            forward = field.concrete and (field.many_to_one or field.one_to_one)
            if forward and getattr(obj, field.attname, None) is not None:
                obj = getattr(obj, name)
                break
        else:
            return None
    return obj


def _contest_of_cleaned(cleaned: dict) -> Contest | None:
    for name in CONTEST_PATH:
        value = cleaned.get(name)
        if isinstance(value, models.Model):
            return contest_of(value)
    return None


def final_refusal(obj, model) -> ContestFinal | None:
    """The refusal `contest_life` gives a write to the object's contest, or None if it is open."""
    contest = contest_of(obj)
    if contest is None:
        return None
    try:
        refuse_if_final(contest, f"its {model._meta.verbose_name_plural}")
    except ContestFinal as refusal:
        return refusal
    return None


class OpenContestForm(forms.ModelForm):
    """Refuses saving an object into a final contest: an add form, or a change that would move
    an object into one. The permissions already refuse changing what a final contest owns."""

    def clean(self):
        cleaned = super().clean()
        contest = _contest_of_cleaned(cleaned) or contest_of(self.instance)
        if contest is not None and contest.pk is not None:
            # The admin validates and saves in one transaction: reading the contest afresh and
            # holding its row means a finalization committing meanwhile is not slipped past.
            refuse_if_final_now(contest, f"its {self._meta.model._meta.verbose_name_plural}")
        return cleaned


class FinalGuard:
    """Final means final in the admin: for everyone, whatever a final contest owns can be
    viewed but not changed or deleted, and nothing can be added into it."""

    form = OpenContestForm

    def _is_final(self, obj) -> bool:
        return final_refusal(obj, self.model) is not None

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and not self._is_final(obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and not self._is_final(obj)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        refusal = final_refusal(obj, self.model) if obj is not None else None
        if refusal is not None and request.method == "GET":
            # Say why the page is read-only rather than leave the organizer to guess.
            messages.info(request, refusal.messages[0])
        return super().render_change_form(request, context, add, change, form_url, obj)


class FinalInlineGuard(FinalGuard):
    """`FinalGuard` for inlines, whose permissions are asked about the parent object."""

    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and not self._is_final(obj)


def lookup_traces_paper(model, lookup: str) -> bool:
    """Whether a changelist filter reaches a paper's identity or metadata, or links a paper
    across problems: it enters a paper from another model (`paper`, `paper__id`, `mark__paper`)
    or leaves one by a relation other than its contest (`labels`, `marks`)."""
    for part in lookup.split(LOOKUP_SEP):
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            # The rest is a lookup or transform (`startswith`, a JSON key).
            return False
        # A paper's reverse relations (labels, marks, solutions) are per problem.
        reverse = field.is_relation and not field.concrete
        if model is Paper and (field.name in IDENTITY_FIELDS or reverse):
            return True
        if not field.is_relation:
            return False
        if field.related_model is Paper and model is not Paper:
            return True
        model = field.related_model
    return False


class _Untraced:
    """An object shown under its model's name alone, where its own name tells its paper's id."""

    def __init__(self, obj, text: str):
        self._obj = obj
        self._text = text

    def __getattr__(self, name):
        return getattr(self._obj, name)

    def __str__(self):
        return self._text


class TraceGuard:
    """Anonymity in the admin. To a user who may not trace papers (`access.may_trace_papers`
    for the object's contest; on lists, which span contests, anyone but the organizer):
    - the `tracing_fields` (a paper's identity and metadata, any `paper` link) are left out of
      lists, forms and read-only pages;
    - a filter in the URL that reaches them is refused (a 400, as Django refuses a filter it
      does not allow), so that `?identity__startswith=` cannot recover an identity letter by
      letter nor `?paper=` collect one paper's work across problems;
    - an object whose name tells its paper's id (`str_traces_paper`) is titled by its model."""

    tracing_fields: tuple[str, ...] = ("paper",)
    str_traces_paper = False

    def may_trace(self, request, obj=None) -> bool:
        return access.may_trace_papers(request.user, contest_of(obj))

    def _hidden(self, request, obj=None) -> set[str]:
        return set() if self.may_trace(request, obj) else set(self.tracing_fields)

    def lookup_allowed(self, lookup, value, request):
        if not self.may_trace(request) and lookup_traces_paper(self.model, lookup):
            return False
        return super().lookup_allowed(lookup, value, request)

    def get_list_display(self, request):
        hidden = self._hidden(request)
        if self.str_traces_paper:
            hidden.add("__str__")
        return [name for name in super().get_list_display(request) if name not in hidden]

    def get_exclude(self, request, obj=None):
        hidden = self._hidden(request, obj)
        return (*(super().get_exclude(request, obj) or ()), *sorted(hidden)) or None

    def get_fields(self, request, obj=None):
        hidden = self._hidden(request, obj)
        return [name for name in super().get_fields(request, obj) if name not in hidden]

    def get_readonly_fields(self, request, obj=None):
        hidden = self._hidden(request, obj)
        return [name for name in super().get_readonly_fields(request, obj) if name not in hidden]

    def _untraced_title(self, request, obj) -> str | None:
        if obj is None or not self.str_traces_paper or self.may_trace(request, obj):
            return None
        return str(self.model._meta.verbose_name).capitalize()

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        title = self._untraced_title(request, obj)
        if title is not None:
            context["subtitle"] = title
            context["original"] = _Untraced(context["original"], title)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def history_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, object_id)
        title = self._untraced_title(request, obj)
        if title is not None:
            extra_context = {
                **(extra_context or {}),
                "title": f"Change history: {title}",
                "object": _Untraced(obj, title),
            }
        return super().history_view(request, object_id, extra_context)


class GuardedAdmin(TraceGuard, FinalGuard, admin.ModelAdmin):
    """The base of every ModelAdmin of the project."""


class GuardedInline(FinalInlineGuard, admin.TabularInline):
    """The base of every inline of the project."""


class RecordAdmin(GuardedAdmin):
    """A record (an event) is written by the services alone and never changed or deleted."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class RecordInline(GuardedInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class NamedByLabel:
    """An admin list whose rows are named by their paper's label in a problem
    (`models._paper_in`): the labels are prefetched for the page, not read one query per row.
    `paper_path` is the way from a row to its paper."""

    paper_path = "paper"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related(f"{self.paper_path}__labels")
