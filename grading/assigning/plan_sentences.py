"""What a problem's plan says about itself: a sentence for each reason it is not everything
asked (papers lacking jurors and why; papers whose jurors do not read their language alone;
a search cut short). Jurors by username, languages as typed, never a paper's identity."""

from collections import defaultdict

from django.utils.translation import ngettext

from grading.assigning import facts
from grading.assigning.plan import Fit, JurorFacts, PaperFacts, ProblemPlan, fit_of
from grading.rules import conflicts


def plan_sentences(
    *,
    problem_number: int,
    jurors: list[JurorFacts],
    papers: list[PaperFacts],
    plan: ProblemPlan,
    upper: int,
    seconds: float,
) -> list[str]:
    code = f"P{problem_number}"
    sentences = _shortfall(code, jurors, papers, plan)
    if plan.languages_known:
        sentences += _languages(code, jurors, papers, plan, upper)
    if not plan.optimal:
        sentences.append(
            f"{code}: the search stopped at its time limit ({seconds:.0f} s); this plan is the "
            "best it found, not proven the best there is."
        )
    return sentences


def _names(jurors) -> str:
    return ", ".join(juror.username for juror in jurors)


def _lack(papers: int, jurors: int) -> str:
    if papers == jurors:
        return ngettext("%d paper lacks a juror", "%d papers lack a juror", papers) % papers
    return ngettext("%(papers)d paper lacks", "%(papers)d papers lack", papers) % {
        "papers": papers
    } + ngettext(" %(jurors)d juror", " %(jurors)d jurors in all", jurors) % {"jurors": jurors}


def _shortfall(code, jurors, papers, plan) -> list[str]:
    """One sentence per set of papers with the same jurors out of reach."""
    groups = defaultdict(list)
    for paper in papers:
        if paper.id in plan.unassigned:
            groups[(paper.assigned, frozenset(paper.excluded), paper.need)].append(paper)
    sentences = []
    for (assigned, excluded, need), short in sorted(groups.items(), key=lambda kv: kv[1][0].id):
        lack = _lack(len(short), sum(plan.unassigned[paper.id] for paper in short))
        eligible = [juror for juror in jurors if juror.id not in assigned | excluded]
        if len(eligible) < need:
            sentences.append(f"{code}: {lack}: {_out_of_reach(jurors, short[0])}.")
            continue
        new = defaultdict(int)
        paper_ids = {paper.id for paper in short}
        for pick in plan.picks:
            if pick.paper_id in paper_ids:
                new[pick.juror_id] += 1
        states = []
        for juror in eligible:
            if juror.capacity is not None and plan.loads[juror.id] >= juror.capacity:
                count = juror.capacity
                states.append(
                    f"{juror.username} is at capacity "
                    f"({ngettext('%d paper', '%d papers', count) % count})"
                )
            else:
                states.append(f"{juror.username} is on every one of them")
        sentences.append(
            f"{code}: {lack}: of the "
            f"{ngettext('%d juror', '%d jurors', len(eligible)) % len(eligible)} who may take "
            f"them, {'; '.join(states)}."
        )
    return sentences


# The facts' reasons are said of one juror ("ann has submitted the problem"); of several,
# these say the same.
_PLURAL = {
    facts.SUBMITTED: "have submitted the problem",
    conflicts.LEADS: "lead the papers' delegation",
    facts.SEEN: "have seen these papers in another role",
    facts.HAD_IT: "had these papers before",
}
_ON_THEM = "on them already"
# A declared conflict's reason follows the rule's words ("…: sister of the contestant").
_PLURAL_DECLARED = {
    conflicts.DECLARED_WITH_DELEGATION: "have a declared conflict with the papers' delegation",
    conflicts.DECLARED_WITH_CONTESTANT: "have a declared conflict with the paper's contestant",
}


def _of_several(reason: str) -> str:
    """A reason said of one juror, said of several."""
    for single, plural in _PLURAL_DECLARED.items():
        if reason.startswith(single):
            return plural + reason[len(single) :]
    return _PLURAL.get(reason, reason)


def _out_of_reach(jurors, paper: PaperFacts) -> str:
    """Why the group has too few jurors for these papers: who is on them already, who may not
    take them and why ("the group has 4 jurors, 2 of them from Estonia (ann, ben), and these
    are Estonia's contestants")."""
    reasons = defaultdict(list)
    for juror in jurors:
        if juror.id in paper.assigned:
            reasons[_ON_THEM].append(juror)
        elif juror.id in paper.excluded:
            reasons[paper.excluded[juror.id]].append(juror)
    parts = []
    countries = []
    for reason, members in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        country = _country_in(reason)
        if country:
            countries.append(country)
            said = f"come from {country}" if len(members) > 1 else f"comes from {country}"
        elif reason == _ON_THEM:
            said = "on them already" if len(members) > 1 else "is on them already"
        elif len(members) > 1:
            said = _of_several(reason)
        else:
            said = reason
        if len(members) == 1:
            parts.append(f"{members[0].username} {said}")
        else:
            parts.append(f"{len(members)} of them {said} ({_names(members)})")
    text = f"the group has {ngettext('%d juror', '%d jurors', len(jurors)) % len(jurors)}"
    if parts:
        text += ", " + ", ".join(parts)
    if len(countries) == 1:
        text += f", and these are {countries[0]}'s contestants"
    return text


def _country_in(reason: str) -> str:
    """The country of a `conflicts.from_country` reason, "" for any other."""
    prefix, suffix = conflicts.from_country("\0").split("\0")
    if reason.startswith(prefix) and reason.endswith(suffix):
        return reason[len(prefix) : len(reason) - len(suffix)]
    return ""


def _languages(code, jurors, papers, plan, upper) -> list[str]:
    """One sentence per language whose papers go to a juror who does not read it alone."""
    flagged = {pick.paper_id for pick in plan.picks if pick.fit != Fit.READS}
    by_language = defaultdict(list)
    for paper in papers:
        if paper.id in flagged:
            by_language[paper.language].append(paper)
    sentences = []
    for language, group in sorted(by_language.items()):
        count = len(group)
        name = group[0].language_name
        these = ngettext("%d paper", "%d papers", count) % count
        if not language:
            sentences.append(
                f"{code}: {these} {ngettext('has', 'have', count)} no answer language on record, "
                "so no juror is known to read "
                f"{ngettext('it', 'them', count)}; {ngettext('its', 'their', count)} jurors are "
                "flagged as not reading it."
            )
            continue
        readers = [juror for juror in jurors if fit_of(juror, language) == Fit.READS]
        helped = [juror for juror in jurors if fit_of(juror, language) == Fit.WITH_HELP]
        if not readers and not helped:
            sentences.append(
                f"{code}: {these} in {name} and no juror of the group reads {name}, even with "
                "help; their jurors need a helper."
            )
        elif not readers:
            sentences.append(
                f"{code}: {these} in {name} and no juror of the group reads {name}; "
                f"{ngettext('%d juror reads', '%d jurors read', len(helped)) % len(helped)} it "
                "with help."
            )
        else:
            states = defaultdict(list)
            for juror in readers:
                states[_reader_state(juror, group, plan, upper)].append(juror.username)
            why = "; ".join(
                f"{', '.join(names)} {state}" for state, names in sorted(states.items())
            )
            sentences.append(
                f"{code}: {these} in {name} {ngettext('has', 'have', count)} a juror who does "
                f"not read it alone, as the "
                f"{ngettext('juror who reads', 'jurors who read', len(readers))} {name} "
                f"{ngettext('takes', 'take', len(readers))} no more of them: {why}."
            )
    return sentences


def _reader_state(juror: JurorFacts, papers: list[PaperFacts], plan, upper: int) -> str:
    """Why a juror who reads the language takes no more of these papers, in a few words."""
    load = plan.loads[juror.id]
    papers_text = ngettext("%d paper", "%d papers", load) % load
    reasons = {paper.excluded.get(juror.id) for paper in papers}
    if len(reasons) == 1 and None not in reasons:
        reason = reasons.pop()
        country = _country_in(reason)
        return f"(from {country}, the papers' country)" if country else f"({reason})"
    if juror.capacity is not None and load >= juror.capacity:
        return f"(at capacity, {papers_text})"
    if load >= upper:
        return f"(at the even share, {papers_text}; a load slack lets readers take more)"
    return f"({papers_text}; the rest are theirs already or out of their reach)"
