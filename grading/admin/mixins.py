"""What makes the admin a door that obeys the project's rules, shared by every ModelAdmin of
`rubrics` and `grading`:

- `FinalGuard`: whatever a final contest owns is read-only (no add into it, no change, no delete,
  inlines included), with the sentence of `contest_life.refuse_if_final`;
- `TraceGuard`: to those who may not trace papers (`access.may_trace_papers`), the admin shows
  no identity and nothing that links a paper across problems (its id, its labels) or tells its
  import order (ids in links, rows in id order, import times, its kind), and refuses every
  filter or sort in the URL that reaches them;
- `RecordAdmin`: records (events) are read by everyone allowed and written by no one here;
- every number (a mark, a criterion's points, step and tolerance, a cut-off) is read as the
  sheet reads points (`rubrics.forms.PointsDecimalField`), ASCII digits only."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.exceptions import DisallowedModelAdminLookup
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import OuterRef, Subquery
from django.db.models.constants import LOOKUP_SEP

from grading.models import Paper, PaperLabel
from grading.rules import access
from grading.rules.phase import refuse_if_final, refuse_if_final_now
from grading.rules.refusals import ContestFinal
from rubrics.forms import PointsDecimalField
from rubrics.models import Contest

# What ties a paper to its system (or a human contestant to their country's team).
IDENTITY_FIELDS = ("identity", "metadata", "delegation")

# In a `TraceGuard`'s `untraced_ordering`: the row's paper's label in the row's problem.
LABEL = "label in its problem"

# The foreign keys that lead from any model of the two apps towards its contest, tried in this
# order (a mark's sheet and its paper lead to the same contest).
CONTEST_PATH = (
    "contest",
    "problem",
    "paper",
    "sheet",
    "mark",
    "resolution",
    "appeal",
    "criterion",
    "task",
    "delegation",
)


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


def _within(lookup: str, list_filter) -> bool:
    """Whether a lookup is one of the list's own filters (`problem__contest__id__exact` for
    `problem__contest`)."""
    paths = [item if isinstance(item, str) else item[0] for item in list_filter]
    return any(
        lookup == path or lookup.startswith(path + LOOKUP_SEP)
        for path in paths
        if isinstance(path, str)
    )


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
    - an object whose name tells its paper's id (`str_traces_paper`) is titled by its model.

    Database ids follow import order, which follows the README's list of systems and sorted
    contestant codes: where a model refers to a paper (`paper_path`), such a user also gets
    - rows ordered by the paper's label in the row's problem (`label_problem`), or by
      `untraced_ordering`, never by id, and no sorting by column (ties would fall back on ids);
    - no link to a row's page and no page by id (Django's "does not exist", alike for every id);
    - no filter but the list's own (`?id__gt=`, `?source=`, `?created_at__lt=` are refused),
      and none of the `untraced_columns` (import times, a paper's kind)."""

    tracing_fields: tuple[str, ...] = ("paper",)
    str_traces_paper = False
    # The way from a row to its paper ("" for a paper itself); None where a row refers to none.
    paper_path: str | None = None
    # The way from a row to the problem whose label names its paper there (for LABEL).
    label_problem: str | None = None
    untraced_ordering: tuple[str, ...] = ()
    untraced_columns: tuple[str, ...] = ()

    def may_trace(self, request, obj=None) -> bool:
        return access.may_trace_papers(request.user, contest_of(obj))

    def _hidden(self, request, obj=None) -> set[str]:
        return set() if self.may_trace(request, obj) else set(self.tracing_fields)

    def _untraced_rows(self, request) -> bool:
        return self.paper_path is not None and not self.may_trace(request)

    def lookup_allowed(self, lookup, value, request):
        if not self.may_trace(request):
            if lookup_traces_paper(self.model, lookup):
                return False
            if self._untraced_rows(request) and not _within(lookup, self.get_list_filter(request)):
                return False
        return super().lookup_allowed(lookup, value, request)

    def get_ordering(self, request):
        if not self._untraced_rows(request):
            return super().get_ordering(request)
        return [self._label_order() if name == LABEL else name for name in self.untraced_ordering]

    def _label_order(self):
        """The row's paper's label in the row's problem, as an ordering."""
        paper = f"{self.paper_path}__pk" if self.paper_path else "pk"
        label = PaperLabel.objects.filter(
            paper_id=OuterRef(paper), problem_id=OuterRef(f"{self.label_problem}__pk")
        ).values("label")[:1]
        return Subquery(label).asc()

    def get_sortable_by(self, request):
        return () if self._untraced_rows(request) else super().get_sortable_by(request)

    def get_list_display_links(self, request, list_display):
        if self._untraced_rows(request):
            return None
        return super().get_list_display_links(request, list_display)

    def get_actions(self, request, action_location=admin.ActionLocation.CHANGE_LIST):
        # A selected row's checkbox carries its id.
        if self._untraced_rows(request):
            return {}
        return super().get_actions(request, action_location=action_location)

    def changelist_view(self, request, extra_context=None):
        if self._untraced_rows(request) and "o" in request.GET:
            # Rows sorted by a column fall back on ids for ties: refused as a filter is (400).
            raise DisallowedModelAdminLookup("Sorting this list is not allowed")
        return super().changelist_view(request, extra_context)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None and self.paper_path is not None and not self.may_trace(request, obj):
            # As for an id that does not exist: which ids do is itself the import order.
            return None
        return obj

    def get_list_display(self, request):
        hidden = self._hidden(request)
        if self._untraced_rows(request):
            hidden.update(self.untraced_columns)
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


DECIMALS_AS_POINTS = {models.DecimalField: {"form_class": PointsDecimalField}}


class GuardedAdmin(TraceGuard, FinalGuard, admin.ModelAdmin):
    """The base of every ModelAdmin of the project."""

    formfield_overrides = DECIMALS_AS_POINTS


class GuardedInline(FinalInlineGuard, admin.TabularInline):
    """The base of every inline of the project."""

    formfield_overrides = DECIMALS_AS_POINTS


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
    (`models.paper_named_in`): the labels are prefetched for the page, not read one query per row.
    `paper_path` is the way from a row to its paper."""

    paper_path = "paper"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related(f"{self.paper_path}__labels")
