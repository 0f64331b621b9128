"""The one place where a refusal becomes an HTTP answer. Services raise typed refusals
(`grading.rules.refusals`); views hand them here rather than guessing a status from the state
afterwards: as JSON for the sheet's autosave, as messages on the page for forms. A post that
passes one of Django's own bounds (too many files, too many fields, too large a form) gets a
sentence naming the setting too: on the upload's own page where the view reads the post itself
(`upload_refusal`), on the site's 400 page (`bad_request`, the `handler400`) everywhere else,
never a bare "Bad Request (400)"."""

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
    ValidationError,
)
from django.http import JsonResponse
from django.shortcuts import render

from grading.rules.refusals import http_status


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
