"""The one place where a refusal becomes an HTTP answer. Services raise typed refusals
(`grading.rules.refusals`) and views let them rise: `RefusalMiddleware.process_exception` answers
every `ValidationError` a view raises, with the refusal's status and sentences, in the shape the
view declared with `on_refusal`:

- a refused post whose view names a page to go back to (`redirect`): the sentences as error
  messages on that page, after a redirect (the post/redirect/get every such form had);
- a refused request whose view shows refusals on its own page (`page`, the console's uploads):
  that page, laid out with the sentences, at the refusal's status;
- anything else: for htmx, a partial with the sentences put at the top of the page (htmx swaps
  only a 2xx, so it comes as a 200 retargeted); otherwise the site's 403 page for a refusal of
  403 (as `PermissionDenied` gets), the refusal page with its status for the others.

Views still catch a refusal where they show it inside a form they re-render with what was typed
(the form's own errors, `refusal_on_form`; the discussion's forms; the autosave's JSON, which
carries the cell as stored beside it): `tests/grading/web/test_errors.py` names
each. A post that passes one of Django's own bounds (too many files, too many fields, too large
a form) gets a sentence naming the setting too: on the upload's own page where the view reads
the post itself (`upload_refusal`), on the site's 400 page (`bad_request`, the `handler400`)
everywhere else, never a bare "Bad Request (400)"."""

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
    ValidationError,
)
from django.core.handlers.exception import response_for_exception
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django_htmx.http import reswap, retarget

from grading.rules.refusals import http_status


@dataclass(frozen=True)
class RefusalAnswer:
    """How a view's refusals are shown (`on_refusal`)."""

    redirect: str | Callable[..., str] | None = None
    page: Callable[..., HttpResponse] | None = None
    one_message: bool = False


def on_refusal(
    *,
    redirect: str | Callable[..., str] | None = None,
    page: Callable[..., HttpResponse] | None = None,
    one_message: bool = False,
):
    """Declare where the view's refusals are shown; `RefusalMiddleware` answers them.

    `redirect`: the page a refused post goes back to, its sentences as error messages there: a
    URL name, reversed with the view's own URL arguments, or `url(request, **kwargs)`.
    `page`: `page(request, sentences, status, **kwargs)`, the view's own page laid out with the
    sentences. `one_message`: the sentences joined into one message rather than one each."""

    def declare(view):
        # An attribute, not a wrapper: `functools.wraps` in the decorators above it carries it
        # to the function the URL conf calls, where the middleware reads it.
        view.refusal_answer = RefusalAnswer(redirect=redirect, page=page, one_message=one_message)
        return view

    return declare


def refusal_answer(request, error: ValidationError, answer: RefusalAnswer | None, kwargs: dict):
    """The answer to a refusal `error` raised by a view declared with `answer` (or None)."""
    sentences, status = error.messages, http_status(error)
    answer = answer or RefusalAnswer()
    if answer.page is not None:
        return answer.page(request, sentences, status, **kwargs)
    if answer.redirect is not None and request.method not in ("GET", "HEAD", "OPTIONS"):
        # A refused GET is answered below: sending it back to a page would loop, or lose it.
        if answer.one_message:
            messages.error(request, " ".join(sentences))
        else:
            refusal_messages(request, error)
        if callable(answer.redirect):
            return redirect(answer.redirect(request, **kwargs))
        return redirect(reverse(answer.redirect, kwargs=kwargs))
    if getattr(request, "htmx", False):
        response = render(request, "_refusal.html", {"sentences": sentences})
        return reswap(retarget(response, "#content"), "afterbegin")
    if status == 403:
        # The site's 403 page, exactly as a view raising PermissionDenied gets it.
        return response_for_exception(request, PermissionDenied(" ".join(sentences)))
    return render(request, "refused.html", {"sentences": sentences}, status=status)


class RefusalMiddleware:
    """Answers every `ValidationError` a view lets rise (`refusal_answer`)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, ValidationError):
            return None
        match = request.resolver_match
        answer = getattr(match.func, "refusal_answer", None) if match else None
        return refusal_answer(request, exception, answer, dict(match.kwargs) if match else {})


def refusal_on_form(form, error: ValidationError) -> int:
    """A refusal shown as the form's own error, for a view that re-renders the form with what was
    typed; the status to render it with."""
    for message in error.messages:
        form.add_error(None, message)
    return http_status(error)


def refusal_json(error: ValidationError, **payload) -> JsonResponse:
    """The refusal's sentences under `error`, with its status (403, 409, 422, 400 …)."""
    return JsonResponse({**payload, "error": " ".join(error.messages)}, status=http_status(error))


def refusal_messages(request, error: ValidationError) -> None:
    """The refusal's sentences as error messages on the next page."""
    for message in error.messages:
        messages.error(request, message)


def post_bound_sentence(error: BaseException) -> tuple[str, int] | None:
    """The sentence and status for a post Django refused by one of its bounds; None for
    anything else."""
    if isinstance(error, TooManyFilesSent):
        return (
            f"The upload holds more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES:,} files, the "
            "most one upload takes (DATA_UPLOAD_MAX_NUMBER_FILES). Upload them as one zip, or "
            "in a few parts.",
            413,
        )
    if isinstance(error, TooManyFieldsSent):
        return (
            f"The form sent more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields, the "
            "most one post takes (DATA_UPLOAD_MAX_NUMBER_FIELDS).",
            413,
        )
    if isinstance(error, RequestDataTooBig):
        return (
            f"The form's fields come to more than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} "
            "bytes, the most one post takes besides its files (DATA_UPLOAD_MAX_MEMORY_SIZE).",
            413,
        )
    return None


def upload_refusal(request) -> tuple[str, int] | None:
    """Read the post's fields and files now, for a view that checks them itself (a view exempt
    from the CSRF middleware, which would otherwise read them first): the sentence and status
    of the bound it passes, or None once it is read."""
    try:
        request.POST  # noqa: B018 (reading it parses the body, files included)
        request.FILES  # noqa: B018
    except (TooManyFilesSent, TooManyFieldsSent, RequestDataTooBig) as error:
        return post_bound_sentence(error)
    return None


def bad_request(request, exception=None):
    """The site's 400 page (`handler400`): Django's bounds on a post said as a sentence naming
    the setting; any other bad request in a plain sentence."""
    sentence, status = post_bound_sentence(exception) or (
        "The request could not be read; go back and try again.",
        400,
    )
    return render(request, "400.html", {"sentence": sentence}, status=status)
