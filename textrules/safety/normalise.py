"""Views of a text that undo the usual ways of slipping a credential past a scanner:
full-width forms, invisible characters, a key broken up by spaces, a key wrapped in
base64. Every character of a view remembers where it came from in the original, so a
finding in a view can be cut out of the text that is actually stored."""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

# Characters that render as nothing: a scanner must not see them as a token boundary.
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u2061\u2062\u2063\u2064")

# Characters of the token alphabets credentials are written in (base64, url-safe base64, hex).
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-+/=]")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}")
_PRINTABLE_SHARE = 0.9


@dataclass(frozen=True)
class View:
    """A rewritten text; origin[i] is the index in the original of text[i]."""

    text: str
    origin: tuple[int, ...]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The smallest span of the original that holds text[start:end], including any
        characters the view dropped in between."""
        return self.origin[start], self.origin[end - 1] + 1


def folded(text: str) -> View:
    """NFKC (full-width letters and digits become ASCII) without invisible characters."""
    if text.isascii():
        return View(text, tuple(range(len(text))))
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch in INVISIBLE:
            continue
        # Per character, so each output character keeps its source index.
        out = ch if ch.isascii() else unicodedata.normalize("NFKC", ch)
        for c in out:
            if c in INVISIBLE:
                continue
            chars.append(c)
            origin.append(i)
    return View("".join(chars), tuple(origin))


def joined(view: View) -> View:
    """`view` with whitespace removed wherever it sits between two token characters, so
    'sk_live_ 4eC3 9HqL' reads as one token. Only worth scanning with detectors that
    need a distinctive prefix: ordinary words glued together are not a key."""
    text = view.text
    chars: list[str] = []
    origin: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace() and chars and _TOKEN_CHAR.match(chars[-1]):
            j = i
            while j < len(text) and text[j].isspace():
                j += 1
            if j < len(text) and _TOKEN_CHAR.match(text[j]):
                i = j
                continue
        chars.append(ch)
        origin.append(view.origin[i])
        i += 1
    return View("".join(chars), tuple(origin))


_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def percent_decoded(view: View) -> View:
    """`view` with percent-escapes decoded (a token pasted from a URL: sk%5Flive%5F…,
    or %E5%AF%86%E7%A0%81 for 密码). Each decoded character maps back to the first escape
    it came from; an escape run that is not UTF-8 stays as it is."""
    text = view.text
    if "%" not in text:
        return view
    chars: list[str] = []
    origin: list[int] = []
    at = 0
    for match in _PERCENT_RUN.finditer(text):
        chars.extend(text[at : match.start()])
        origin.extend(view.origin[at : match.start()])
        run = match.group(0)
        try:
            decoded = bytes.fromhex(run.replace("%", "")).decode("utf-8")
        except UnicodeDecodeError:
            decoded = None
        if decoded is None or any(c in INVISIBLE for c in decoded):
            chars.extend(run)
            origin.extend(view.origin[match.start() : match.end()])
        else:
            # Every decoded character points at the escapes it came from, in order: the
            # span of a finding then covers them all.
            width = len(run) / max(len(decoded), 1)
            for i, ch in enumerate(decoded):
                chars.append(ch)
                origin.append(view.origin[match.start() + int(i * width)])
            # The last decoded character also owns the rest of the run.
            origin[-1] = view.origin[match.end() - 1]
        at = match.end()
    chars.extend(text[at:])
    origin.extend(view.origin[at:])
    return View("".join(chars), tuple(origin))


def decoded_blobs(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded text) for each run in `text` that is base64 of readable
    UTF-8 text; random keys and ordinary words do not decode to text."""
    for match in _BASE64_RUN.finditer(text):
        blob = match.group(0)
        decoded = _decode(blob)
        if decoded is not None:
            yield match.start(), match.end(), decoded


def _decode(blob: str) -> str | None:
    body = blob.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    alphabet = b"-_" if ("-" in body or "_" in body) else None
    try:
        raw = base64.b64decode(padded, altchars=alphabet, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 8:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t")
    return text if printable / len(text) >= _PRINTABLE_SHARE else None
