"""The one place where a refusal becomes an HTTP answer. Services raise typed refusals
(`grading.refusals`); views hand them here rather than guessing a status from the state
afterwards: as JSON for the sheet's autosave, as messages on the page for forms."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import JsonResponse

from grading.refusals import http_status


def refusal_json(error: ValidationError, **payload) -> JsonResponse:
    """The refusal's sentences under `error`, with its status (403, 409, 422, 400 …)."""
    return JsonResponse({**payload, "error": " ".join(error.messages)}, status=http_status(error))


def refusal_messages(request, error: ValidationError) -> None:
    """The refusal's sentences as error messages on the next page."""
    for message in error.messages:
        messages.error(request, message)
