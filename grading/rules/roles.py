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
    """Create the role groups with their permissions (run after every migrate)."""
    organizer, _ = Group.objects.get_or_create(name=ORGANIZER)
    chair, _ = Group.objects.get_or_create(name=CHAIR)
    Group.objects.get_or_create(name=JUROR)
    Group.objects.get_or_create(name=LEADER)
    Group.objects.get_or_create(name=SPECIALIST)
    app_perms = Permission.objects.filter(content_type__app_label__in=_ORGANIZER_APPS)
    organizer.permissions.set(app_perms)
    chair.permissions.set(app_perms.filter(codename__startswith="view_"))
