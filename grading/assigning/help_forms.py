"""The forms of language help's pages: a juror's question, the helper chosen for it, the
helper's answer."""

from django import forms

from grading.assigning.help import ANSWER_MAX, QUESTION_MAX


class HelpAskForm(forms.Form):
    question = forms.CharField(
        max_length=QUESTION_MAX,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": "Write your question: what you need read or translated."},
    )


class HelpAssignForm(forms.Form):
    helper = forms.CharField(
        max_length=150, error_messages={"required": "Choose the helper for this question."}
    )


class HelpAnswerForm(forms.Form):
    answer = forms.CharField(
        max_length=ANSWER_MAX,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 6}),
        error_messages={"required": "Write your answer: the translation note the juror reads."},
    )
