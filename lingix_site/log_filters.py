"""A client error is not a server fault: Django logs a refused request (a reviewer's 403, a
404) with the exception attached, which prints a traceback into the server log for
something that worked as designed. Only 5xx records keep their traceback."""

from __future__ import annotations

import logging


class ClientErrorsWithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
