"""Language help on the `contest` fixture's papers: a language specialist who reads Tagalog
(sara), one who reads Russian (ivan), and helpers to make questions with, through the services."""

from django.contrib.auth.models import User

from grading.assigning.help import help_answer, help_ask, help_assign
from grading.models import HelpRequest, JurorLanguage, Paper, PaperLabel
from grading.rules import roles
from tests.factories import make_user


def specialist(username: str, *languages: str, **extra) -> User:
    user = make_user(username, roles.SPECIALIST, **extra)
    JurorLanguage.objects.bulk_create(
        JurorLanguage(user=user, language=language, level=JurorLanguage.Level.READS)
        for language in languages
    )
    return user


def human_paper(contest, *, language: str = "Tagalog") -> Paper:
    """The contest's first paper by label in problem 1, made a contestant's answered in
    `language`."""
    paper = (
        PaperLabel.objects.filter(problem__contest=contest, problem__number=1)
        .order_by("label")
        .first()
        .paper
    )
    paper.source, paper.answer_language = Paper.Source.HUMAN, language
    paper.save(update_fields=["source", "answer_language"])
    return paper


def label(paper, number: int = 1) -> str:
    return paper.labels.get(problem__number=number).label


def asked(juror, paper, *, number: int = 1, question: str = "What does line 3 say?"):
    problem = paper.contest.problems.get(number=number)
    return help_ask(actor=juror, problem=problem, paper=paper, question=question)


def assigned(request: HelpRequest, helper, *, by) -> HelpRequest:
    return help_assign(actor=by, request=request, helper=helper)


def answered(request: HelpRequest, answer: str = "Line 3: 'the dog sleeps'.") -> HelpRequest:
    return help_answer(actor=request.helper, request=request, answer=answer)
