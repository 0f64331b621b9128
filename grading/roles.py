"""The three roles are Django groups; these helpers are the one place that asks who is what."""

from django.contrib.auth.models import Group, Permission

ORGANIZER = "organizer"
CHAIR = "chair"
JUROR = "juror"
ROLES = (ORGANIZER, CHAIR, JUROR)

# Organizers set contests up in the admin; the chair reads everything there.
_ORGANIZER_APPS = ("rubrics", "grading")


def _group_names(user) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_jury_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._jury_roles = cached
    return cached


def is_organizer(user) -> bool:
    return user.is_authenticated and (user.is_superuser or ORGANIZER in _group_names(user))


def is_chair(user) -> bool:
    return CHAIR in _group_names(user)


def is_juror(user) -> bool:
    return JUROR in _group_names(user)


def may_see_identities(user, contest) -> bool:
    """Identities are the organizer's; the chair sees them once the contest is final."""
    return is_organizer(user) or (is_chair(user) and contest.is_final)


def ensure_role_groups(**kwargs) -> None:
    """Create the role groups with their permissions (run after every migrate)."""
    organizer, _ = Group.objects.get_or_create(name=ORGANIZER)
    chair, _ = Group.objects.get_or_create(name=CHAIR)
    Group.objects.get_or_create(name=JUROR)
    app_perms = Permission.objects.filter(content_type__app_label__in=_ORGANIZER_APPS)
    organizer.permissions.set(app_perms)
    chair.permissions.set(app_perms.filter(codename__startswith="view_"))
