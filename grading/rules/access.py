"""Who may see and do what: the one home of every access rule.

Views, services, the admin and management commands all ask these predicates, so that a rule is
written once and a new door cannot forget it. Roles are Django groups (`grading.rules.roles`); a
superuser counts as an organizer. Predicates answer booleans; `require` turns a "no" into the
typed refusal `NotAllowed` for services, which refuse on their own rather than trusting that a
view asked first.

The rules, in words:
- identities (a paper's system name and metadata) are the organizer's, and the chair's once the
  contest is final; no one else ever sees them;
- a juror grades, prints and reads the papers assigned to them in a problem, and nothing else;
  never, whatever is assigned, a contestant's paper they are conflicted with (they lead the
  contestant's delegation, come from its country, or the organizer declared a conflict with
  the delegation or the contestant: `grading.rules.conflicts`), and nothing of it in the
  comparison and discussions either;
- a problem's comparison and discussions open to a juror of the problem once their own sheet
  for it is submitted (independence); the chair and the organizer read them always;
- the comment bank of a problem's criteria is its jurors' and the chair's to use and add to,
  the chair's (and the organizer's) to curate;
- the group's jurors and the chair take part in discussions; the chair alone decides cells,
  opens the resolution phase and finalizes;
- the organizer sets contests up, starts grading and alone reopens a final contest; the
  organizer's console (people, their sign-in links, contests and cut-offs) is theirs alone;
- results and exports are the chair's and the organizer's;
- language help: a juror asks about a paper they mark, the organizer or the chair gives the
  question a helper (another juror or a language specialist), who reads that paper's pages in
  that problem and the question, and nothing else; a specialist never grades;
- a calibration round is led by the chair (the organizer too) and graded by the jurors of the
  problem's group, who read its papers while it is open; the reference and the other jurors'
  calibration marks stay hidden from a juror until their calibration sheet is submitted."""

import enum

from django.contrib.auth.models import User
from django.db.models import OuterRef, Q, Subquery

from grading.models import (
    Assignment,
    CalibrationPaper,
    CalibrationRound,
    GradingGroup,
    Paper,
    Seed,
)
from grading.rules import conflicts, roles
from grading.rules.refusals import NotAllowed


def _group_names(user) -> set[str]:
    if not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_jury_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._jury_roles = cached
    return cached


def has_role(user, role: str) -> bool:
    return role in _group_names(user)


def is_organizer(user) -> bool:
    return bool(user and user.is_authenticated) and (
        user.is_superuser or roles.ORGANIZER in _group_names(user)
    )


def is_chair(user) -> bool:
    return roles.CHAIR in _group_names(user)


def is_juror(user) -> bool:
    return roles.JUROR in _group_names(user)


def is_specialist(user) -> bool:
    return roles.SPECIALIST in _group_names(user)


def reads_every_paper(user) -> bool:
    """The organizer and the chair read every paper, comparison and discussion."""
    return is_organizer(user) or is_chair(user)


def may_see_identities(user, contest) -> bool:
    """Identities are the organizer's; the chair sees them once the contest is final."""
    return is_organizer(user) or (is_chair(user) and contest.is_final)


def may_export_identities(user, contest) -> bool:
    """An export names the systems only once the contest is final, even for the organizer:
    a file travels, and outlives a reopening that hides them from the chair again."""
    return contest.is_final and may_see_identities(user, contest)


def is_assigned(user, problem) -> bool:
    """Whether the user grades at least one paper of the problem."""
    return bool(user.is_authenticated) and problem.assignments.filter(juror=user).exists()


def in_group(user, problem) -> bool:
    """Whether the user is a juror of the problem's group: named in it, or grading a paper of
    the problem (a juror added to the group later, with no paper, is one too)."""
    if not user.is_authenticated:
        return False
    return (
        is_assigned(user, problem)
        or GradingGroup.objects.filter(problem=problem, jurors=user).exists()
    )


def may_grade(user, problem) -> bool:
    """A juror with papers of the problem assigned has a sheet for it."""
    return is_juror(user) and is_assigned(user, problem)


def may_mark(user, *, problem, paper) -> bool:
    """A juror marks the papers assigned to them in the problem, and no other, unless they are
    conflicted with it (`paper` is a Paper or its id). Two queries (the conflicts, then the
    assignment with the role, unless the role is known already)."""
    if not user.is_authenticated:
        return False
    assigned = problem.assignments.filter(paper=paper).exclude(
        conflicts.conflicted(user, contest=problem.contest_id)
    )
    if getattr(user, "_jury_roles", None) is not None:
        return is_juror(user) and assigned.filter(juror=user).exists()
    return assigned.filter(_assigned_to_juror(user)).exists()


def markable_marks(juror_id: int, *, conflicted_delegations) -> Q:
    """`may_mark` as a filter on marks, for the autosave's lookup of its cell, which asks it on
    every save in the same query: the marks of the juror's own sheets on the papers assigned to
    them in the sheet's problem, while they are a juror and not conflicted with the paper.
    `conflicted_delegations`: the ids `conflicts.conflicted_delegations` gives for the juror,
    read by the caller, so that the filter builds without a query and the lookup's SQL can be
    built once per juror's conflicts (`grading.rules.compiled_sql`).

    The role and the assignment are subqueries, not joins: joined, they put five more tables in
    the lookup, which PostgreSQL took 10-40 ms to plan on every save (bench/load.py, issue 32).
    The assignment is compared as a scalar subquery rather than asked with EXISTS, which the
    planner would fold back into the join."""
    as_juror = User.objects.filter(pk=juror_id, groups__name=roles.JUROR).values("pk")
    assignment = Assignment.objects.filter(
        juror=juror_id, paper=OuterRef("paper_id"), problem=OuterRef("sheet__problem_id")
    ).values("paper_id")
    return Q(
        sheet__juror=juror_id, sheet__juror__in=as_juror, paper_id=Subquery(assignment[:1])
    ) & ~conflicts.conflicted(juror_id, delegations=conflicted_delegations)


def _assigned_to_juror(user, *, through: str = "") -> Q:
    """An assignment (reached from the queried model by `through`) of the user, as a juror."""
    return Q(**{f"{through}juror": user, f"{through}juror__groups__name": roles.JUROR})


def graded_assignments(juror, problem=None):
    """The juror's assignments (in `problem`, or in every problem) that are theirs to grade:
    every one but those of papers they are conflicted with, which leave their sheet, its
    counts, downloads and printouts at once when a fact changes. `juror` is a user or a
    user's id, `problem` a Problem or its id. One query to build (the conflicts)."""
    juror_id = juror if isinstance(juror, int) else juror.pk
    assignments = Assignment.objects.filter(juror_id=juror_id)
    if problem is not None:
        assignments = assignments.filter(problem=problem)
    # The conflicts of the problem's contest when it is at hand, else of every contest.
    contest = getattr(problem, "contest_id", None)
    return assignments.exclude(conflicts.conflicted(juror_id, contest=contest))


def conflicted_with(user, paper) -> bool:
    """Whether a conflict of interest keeps the user from the paper as a juror (they lead its
    contestant's delegation, come from its country, or have a conflict declared with the
    delegation or the contestant): they neither mark nor read it, nor read its cells in the
    comparison and discussions. One query, none for an AI paper."""
    return conflicts.paper_conflict(user, paper) is not None


def papers_kept_from(user, contest) -> set[int]:
    """The ids of the contest's papers a conflict keeps from the user as a juror, for pages
    that list every paper of a problem (the comparison): none for the organizer and the
    chair, who read every paper. At most two queries."""
    if reads_every_paper(user):
        return set()
    kept_from = conflicts.conflicted(user, contest=contest, paper="")
    return set(Paper.objects.filter(kept_from, contest=contest).values_list("pk", flat=True))


def may_read_paper(user, *, problem, paper) -> bool:
    """A juror reads only the papers assigned to them (none they are conflicted with), and the
    calibration papers of an open round of their group; organizers and the chair read all."""
    if reads_every_paper(user):
        return True
    if not is_juror(user):
        return False
    # Asked second, so that an assigned paper keeps its two queries.
    return _grades(user, problem=problem, paper=paper) or calibrates_on(
        user, problem=problem, paper=paper
    )


def is_assigned_paper(user, *, problem, paper) -> bool:
    """Assigned the paper in the problem (whatever its conflicts)."""
    return problem.assignments.filter(juror=user, paper=paper).exists()


def _grades(user, *, problem, paper) -> bool:
    """Assigned to the user in the problem, and not a paper they are conflicted with."""
    return (
        problem.assignments.filter(juror=user, paper=paper)
        .exclude(conflicts.conflicted(user, contest=problem.contest_id))
        .exists()
    )


def may_read_pages(user, *, problem, paper) -> bool:
    """A human paper's scanned pages: whoever may read the paper, a juror of the group once
    their sheet is submitted, who reads any paper of the problem in its comparison and
    discussions (an AI paper's answers there too), never before (independence), and the
    helper of a question on the paper in the problem (that paper, that problem only)."""
    if may_read_paper(user, problem=problem, paper=paper):
        return True
    if (
        comparison_access(user, problem) == ComparisonAccess.READ
        and problem.assignments.filter(paper=paper)
        .exclude(conflicts.conflicted(user, contest=problem.contest_id))
        .exists()
    ):
        return True
    # Asked last, so that the rules above keep their queries: a helper reads the pages of the
    # paper they were asked about, in that problem only.
    return helps_on(user, problem=problem, paper=paper)


def may_read_seed(user, seed) -> bool:
    """A seed (a calibration paper back in a live sheet under a fresh label) is read, by that
    label, by the juror whose sheet it is in, and by no one else: to the others the label names
    no paper at all."""
    return is_juror(user) and seed.juror_id == user.pk


def may_read_problem(user, problem) -> bool:
    return reads_every_paper(user) or may_grade(user, problem)


# Language help. A juror asks about a paper they mark; the organizer or the chair gives the
# question a helper; the helper reads that paper's pages in that problem and the question, and
# answers. A language specialist holds no other role: no sheet, no comparison, no results.


def helps_on(user, *, problem, paper) -> bool:
    """Whether the user is the helper of a question on the paper in the problem. One query."""
    return (
        bool(user.is_authenticated)
        and problem.help_requests.filter(helper=user, paper=paper).exists()
    )


def helps_in(user, problem) -> bool:
    """Whether the user helps on a question of the problem: the door to its page images,
    where `may_read_pages` then names the one paper."""
    return bool(user.is_authenticated) and problem.help_requests.filter(helper=user).exists()


def may_ask_help(user, *, problem, paper) -> bool:
    """A juror asks for language help on a paper they mark, while the contest is grading or
    in its resolution phase (before, there is nothing to read; after, nothing to mark)."""
    contest = problem.contest
    return contest.state in (contest.State.GRADING, contest.State.RESOLUTION) and may_mark(
        user, problem=problem, paper=paper
    )


def may_ask_help_on_seed(user, *, problem, seed) -> bool:
    """A seed's row offers the question as any row of the sheet does (whether its juror marks
    the calibration paper under another label must not show)."""
    contest = problem.contest
    return contest.state in (contest.State.GRADING, contest.State.RESOLUTION) and may_read_seed(
        user, seed
    )


def may_read_group_calibration(user) -> bool:
    """Every juror's calibration figures and seed deviations on a problem are the chair's (and
    the organizer's): a juror sees only their own (`may_read_own_calibration`)."""
    return reads_every_paper(user)


def may_read_own_calibration(user, problem) -> bool:
    """A juror's own calibration figures on a problem, once their sheet for it is submitted:
    before, the agreed points and the reference would tell them how their colleagues marked
    (independence) and how the seeds should be marked."""
    return is_juror(user) and problem.sheets.submitted().filter(juror=user).exists()


def may_assign_help(user) -> bool:
    """The organizer or the chair gives a question its helper, and reads the help queue."""
    return reads_every_paper(user)


def may_help(user, request) -> bool:
    """The helper of a question reads it and answers it; nobody else does."""
    return bool(user.is_authenticated) and request.helper_id == user.pk


# Grading the same way. The chair (or the organizer) leads a problem's calibration round; every
# juror of the problem's group grades its papers in a calibration sheet, reading them while the
# round is open even when they are not assigned them.


def may_lead_calibration(user) -> bool:
    """The chair (and the organizer) creates a round, enters its reference and opens and
    closes it."""
    return is_chair(user) or is_organizer(user)


def may_calibrate(user, problem) -> bool:
    """A juror of the problem's grading group grades its calibration round. One query."""
    return (
        is_juror(user) and GradingGroup.objects.filter(problem_id=problem.pk, jurors=user).exists()
    )


def calibrates_on(user, *, problem, paper) -> bool:
    """Whether the paper is a calibration paper of the problem's open round and the user a
    juror of its group: then they read it, under its calibration label. Not a paper the chair
    keeps out of the round for seeding: its seeds must be papers their jurors never saw. One
    query."""
    return (
        bool(user.is_authenticated)
        and is_juror(user)
        and CalibrationPaper.objects.graded_in_round()
        .filter(
            round__problem_id=problem.pk,
            round__state=CalibrationRound.State.OPEN,
            paper=paper,
            round__problem__group__jurors=user,
        )
        .exists()
    )


class ComparisonAccess(enum.Enum):
    READ = "read"
    SUBMIT_FIRST = "submit first"
    NONE = "none"


def comparison_access(user, problem) -> ComparisonAccess:
    """Whether the user may read the problem's comparison and discussions now. A juror of the
    problem must have submitted their own sheet first (independence); outsiders get NONE."""
    if reads_every_paper(user):
        return ComparisonAccess.READ
    if not is_juror(user):
        return ComparisonAccess.NONE
    if not in_group(user, problem):
        return ComparisonAccess.NONE
    if not problem.sheets.submitted().filter(juror=user).exists():
        return ComparisonAccess.SUBMIT_FIRST
    return ComparisonAccess.READ


def may_discuss(user, problem) -> bool:
    """The group's jurors and the chair take part in a discussion; the organizer only reads."""
    return is_chair(user) or (is_juror(user) and is_assigned(user, problem))


def may_join_session(user, problem) -> bool:
    """A discussion session in the room (`grading.resolution.sessions`) is the group's jurors'
    who have submitted their sheet (independence, as for the comparison) and the chair's."""
    return may_discuss(user, problem) and comparison_access(user, problem) == ComparisonAccess.READ


# A cell graded by one juror alone has no one else to discuss it with: its juror is told so
# instead of a comment form, and a comment of theirs is refused with the same sentence. A seed
# (always its juror's alone) answers the same, so that nothing tells it apart from a paper.
ALONE = "You grade this paper alone: there is no one to discuss this cell with."


def discusses_alone(user, *, graders: int) -> bool:
    """Whether the user would discuss a cell with no one: a juror on a cell of a paper
    `graders` (the jurors assigned to it) is one. The chair may still comment on it."""
    return graders == 1 and not is_chair(user)


def lists_own_seeds(user) -> bool:
    """A juror's own seeds are rows of their comparison, as their papers are (to them a seed is
    a paper); no one else's comparison lists a seed, the chair's and the organizer's included:
    seeds never count."""
    return is_juror(user) and not reads_every_paper(user)


def may_discuss_paper(user, *, problem, paper) -> bool:
    """`may_discuss` for one paper's cells: never a juror conflicted with the paper, nor one
    whose seed shows the paper's answers under another label (`papers_seeded_for`)."""
    return may_discuss(user, problem) and (
        is_chair(user)
        or (not conflicted_with(user, paper) and paper.pk not in papers_seeded_for(user, problem))
    )


def papers_seeded_for(user, problem) -> set[int]:
    """The ids of the problem's live papers whose answers a seed of the juror's shows under a
    label of its own: kept from the juror's comparison and discussions, as a conflict keeps a
    paper, so that the same answers never appear under two labels and give the seed away (to
    the juror the seed is that paper). None for a reader of every paper, and none the juror
    grades live in the problem. At most one query."""
    if reads_every_paper(user) or not is_juror(user):
        return set()
    graded_live = Assignment.objects.filter(juror=user, problem=problem).values("paper_id")
    return set(
        Seed.objects.filter(juror=user, calibration_paper__round__problem=problem)
        .exclude(calibration_paper__paper_id__in=graded_live)
        .values_list("calibration_paper__paper_id", flat=True)
    )


def may_decide(user) -> bool:
    """The chair decides discrepancies, opens the resolution phase and finalizes."""
    return is_chair(user)


def may_amend_scheme(user) -> bool:
    """The chair and the organizer amend a problem's scheme (a new version once marks exist,
    which may reopen marks for their jurors); jurors read the scheme in their sheets."""
    return is_chair(user) or is_organizer(user)


def may_set_cutoffs(user) -> bool:
    """The organizer sets medal cut-offs; so does the chair, by confirming the cut-offs proposed
    from the human contestants' totals (the olympiad's jury sets them after seeing the scores)."""
    return is_organizer(user) or is_chair(user)


def may_run_contest(user) -> bool:
    """The organizer sets a contest up, imports, assigns, starts grading and reopens."""
    return is_organizer(user)


def may_manage_person(actor, person) -> bool:
    """The organizer edits, deactivates, unlocks and re-links people in the console; a
    superuser's account is a superuser's alone (a sign-in link to it would hand its powers on)."""
    if not may_run_contest(actor):
        return False
    return not person.is_superuser or bool(actor.is_superuser)


def may_drop_organizer(actor, person, *, other_organizers: int) -> bool:
    """An organizer's role is taken away by another organizer only, and never from the last
    active one: the console would be left without anyone to run it."""
    return person.pk != actor.pk and other_organizers > 0


def may_read_results(user) -> bool:
    return is_chair(user) or is_organizer(user)


def may_run_jobs(user) -> bool:
    """The organizer and the chair start the contest's background jobs (its printouts), follow
    them and download what they make; jurors print their own papers from their pages."""
    return reads_every_paper(user)


def may_fetch_bundle_job(user, job) -> bool:
    """A bundle made in the background (`Job.Kind.BUNDLE`) is its requester's alone, as the
    download it stands in for: printed in their scope (a juror's own papers), so nobody else
    follows or downloads it, the chair included; and only while they may still read its
    problem (a juror taken out of the group loses it)."""
    return (
        user.is_authenticated
        and job.requested_by_id == user.pk
        and job.problem is not None
        and may_read_problem(user, job.problem)
    )


def may_see_pending_jurors(user) -> bool:
    """Who has not yet submitted a problem's sheet is the chair's and the organizer's to
    know; a juror reading the comparison sees such a colleague as "juror not yet submitted"."""
    return reads_every_paper(user)


def require(allowed: bool, message: str) -> None:
    """Refuse with `NotAllowed(message)` unless `allowed`."""
    if not allowed:
        raise NotAllowed(message)


def may_trace_papers(user, contest=None) -> bool:
    """Whether the user may see what ties a paper to its system: its identity and metadata,
    and what links its work across problems (its id, its label in every problem). Those who may
    see identities; without a contest (an admin list spanning contests), the organizer alone."""
    if contest is None:
        return is_organizer(user)
    return may_see_identities(user, contest)
