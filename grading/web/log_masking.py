"""One-time sign-in tokens never reach a log. A sign-in slip's link
(`/accounts/sign-in/<uidb64>/<token>/`, `grading.console.views.signin`) signs its juror in until
it is used: whoever reads the access log before then could sign in as that juror. Every log line
the site writes passes through `mask`: Django's loggers through `MaskSignInTokens`, a filter on
LOGGING's handlers (grading/settings.py), and gunicorn's access and error logs through
`grading.web.gunicorn_logging.Logger`."""

import logging
import re

MASK = "[token]"
# The token is the path segment after the uidb64; `set-password` is what Django's view puts in
# its place once the token has moved into the session, and is kept, as is the uidb64 (which only
# names the account). Percent-encoded slashes are not a concern: Django's router would not match.
SIGN_IN_TOKEN = re.compile(r"(/accounts/sign-in/[^/\s\"'?#]+/)(?!set-password/)[^/\s\"'?#]+")


def mask(text: str) -> str:
    """`text` with every sign-in token replaced by MASK."""
    return SIGN_IN_TOKEN.sub(rf"\g<1>{MASK}", text)


class MaskSignInTokens(logging.Filter):
    """On a handler, so that it sees what every logger below it propagates (a logger's own
    filters see only that logger's records)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask(message)
        if masked != message:
            record.msg, record.args = masked, ()
        if record.exc_text:
            record.exc_text = mask(record.exc_text)
        return True
