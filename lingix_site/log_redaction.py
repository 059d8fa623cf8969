"""A logging filter that takes credentials out of every record before any handler writes
it: access-log lines carry the request line (a `?token=` someone put in a URL), and
exception messages can quote a header. Installed on every handler in settings.LOGGING."""

from __future__ import annotations

import logging
import re

REDACTED = "[redacted]"

# Our API tokens, 'lgx_<prefix>_<secret>' (api.services), also when mangled or cut short.
_OUR_TOKEN = re.compile(r"lgx_[A-Za-z0-9_\-]{4,}")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+")
# A credential-named query or form value, up to the next separator.
_QUERY_VALUE = re.compile(r"(?i)((?:^|[?&;\s\"'])(?:access_?token|token|api_?key|apikey|key|secret|password|auth)=)[^&\s\"';]+")
_formatter = logging.Formatter()


def redact(text: str) -> str:
    text = _OUR_TOKEN.sub(f"lgx_{REDACTED}", text)
    text = _BEARER.sub(rf"\g<1>{REDACTED}", text)
    return _QUERY_VALUE.sub(rf"\g<1>{REDACTED}", text)


class RedactCredentials(logging.Filter):
    """Renders the message with its args once, redacted, so no handler or formatter can
    put the original args back; a traceback is rendered and redacted the same way."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a broken format string must not lose the line, nor leak its args
            message = f"{record.msg!s} {record.args!r}"
        record.msg, record.args = redact(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = _formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True
