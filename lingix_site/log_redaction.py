"""A logging filter that takes credentials out of every record before any handler writes
it: access-log lines carry the request line (a `?token=` someone put in a URL), and
exception messages can quote a header. Installed on every handler in settings.LOGGING."""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from urllib.parse import unquote

from textrules.safety.credentials import find_credentials

REDACTED = "[redacted]"

# Our API tokens, 'lgx_<prefix>_<secret>' (api.services), also when mangled or cut short.
_OUR_TOKEN = re.compile(r"lgx_[A-Za-z0-9_\-]{4,}")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+")
# A credential-named query or form value, up to the next separator.
_QUERY_VALUE = re.compile(r"(?i)((?:^|[?&;\s\"'])(?:access_?token|token|api_?key|apikey|key|secret|password|auth)=)[^&\s\"';]+")
# Any piece of a URL between its separators (a path segment, a query name or value, named
# or not) long enough to be a token: judged by _token_shaped below.
_URL_PIECE = re.compile(r"(?<=[/?&=;,])[^/?&=;,#\s\"'<>]{16,}")
_TOKEN_ALPHABET = re.compile(r"[A-Za-z0-9_\-.~+/=:!*$@]+")
# Random keys of 20+ characters clear this; words, slugs and version numbers do not.
_PIECE_ENTROPY = 3.4
_formatter = logging.Formatter()


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _token_shaped(piece: str) -> bool:
    """A URL piece that is a credential (a known shape, percent-encoded or not) or looks
    like one: letters and digits mixed, random enough. Words, Chinese (percent-encoded
    or not), numbers and ordinary slugs stay readable."""
    decoded = unquote(piece)
    if not decoded.isascii() or not _TOKEN_ALPHABET.fullmatch(decoded):
        return False
    if not (re.search(r"[A-Za-z]", decoded) and re.search(r"[0-9]", decoded)):
        return False
    if find_credentials(decoded):
        return True
    return len(decoded) >= 20 and _entropy(decoded) >= _PIECE_ENTROPY


def _url_pieces(text: str) -> str:
    return _URL_PIECE.sub(lambda m: REDACTED if _token_shaped(m.group(0)) else m.group(0), text)


def redact(text: str) -> str:
    text = _OUR_TOKEN.sub(f"lgx_{REDACTED}", text)
    text = _BEARER.sub(rf"\g<1>{REDACTED}", text)
    text = _QUERY_VALUE.sub(rf"\g<1>{REDACTED}", text)
    return _url_pieces(text)


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
