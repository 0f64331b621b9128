"""gunicorn's logger with sign-in tokens masked (`grading.web.log_masking`), for
`gunicorn --logger-class grading.web.gunicorn_logging.Logger` (scripts/serve.sh). The access log's
format only picks fields; the fields themselves (request line, path, referer, headers) are
masked here, before any format sees them."""

from gunicorn import glogging

from grading.web.log_masking import MaskSignInTokens, mask


class Logger(glogging.Logger):
    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {
            key: mask(value) if isinstance(value, str) else value for key, value in atoms.items()
        }

    def setup(self, cfg):
        super().setup(cfg)
        # The error log names a request's path on a timeout or a crash of a worker.
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                if not any(isinstance(f, MaskSignInTokens) for f in handler.filters):
                    handler.addFilter(MaskSignInTokens())
