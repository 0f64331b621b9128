"""The five roles are Django groups, created with their admin permissions after every migrate.
Who may see and do what is decided in `grading.rules.access`."""

from django.contrib.auth.models import Group, Permission

ORGANIZER = "organizer"
CHAIR = "chair"
JUROR = "juror"
# A delegation's team leader: reads their own contestants' provisional results and appeals.
LEADER = "leader"
# A language specialist from outside the jury: reads the pages of the papers whose language
# help they were given, and answers the jurors' questions; no grading rights.
SPECIALIST = "specialist"
ROLES = (ORGANIZER, CHAIR, JUROR, LEADER, SPECIALIST)

# Organizers set contests up in the admin; the chair reads everything there.
_ORGANIZER_APPS = ("rubrics", "grading")


def ensure_role_groups(**kwargs) -> None:
    """Create the role groups with their permissions: after every migrate, and at each door
    that gives someone a role. When all is in place it reads five small queries' worth and
    writes nothing (permissions compared by id, not loaded as objects)."""
    existing = {group.name: group for group in Group.objects.filter(name__in=ROLES)}
    groups = {
        name: existing.get(name) or Group.objects.get_or_create(name=name)[0] for name in ROLES
    }
    app_permissions = Permission.objects.filter(content_type__app_label__in=_ORGANIZER_APPS)
    groups[ORGANIZER].permissions.set(list(app_permissions.values_list("pk", flat=True)))
    groups[CHAIR].permissions.set(
        list(app_permissions.filter(codename__startswith="view_").values_list("pk", flat=True))
    )
