"""Find credentials with detect-secrets' detectors (vendor keys, keyword assignments, high
entropy strings) plus the few shapes in extra_detectors, over the normalised views of a
text, and report each as a span of the original text.

The library's detectors are driven directly (analyze_string on instances we own) rather
than through its global settings and file scanner, so scanning is thread-safe, makes no
network call (no verification) and needs no temporary file."""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import BasePlugin
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString
from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, KeywordDetector

from textrules.safety.extra_detectors import EXTRA_DETECTORS, configured_detectors
from textrules.safety.names import CHINESE_SECRET_WORDS, is_secret_name
from textrules.safety.normalise import INVISIBLE, View, decoded_blobs, folded, joined, percent_decoded

# Entropy limits, measured on the demo memories and the benign corpus (tests/data): ad-ops
# words, snake_case plan ids and URL parameters stay under them; random keys of 24+
# characters clear them.
BASE64_LIMIT = 4.2
HEX_LIMIT = 3.2
MIN_ENTROPY_LENGTH = 24
# A key found only after re-joining space-separated pieces must also look random, so
# glued-together words that happen to start with a vendor prefix are not taken for one.
JOINED_MIN_ENTROPY = 3.8
# Hex strings of these lengths are digests (md5, sha1, sha256): this service writes
# such hashes into its own rows, and a hash is not a credential. Unless a secret word
# stands just before it (AppSecret, 密钥, token …): then any hex run of CONTEXT_HEX_MIN or
# more characters is taken, whatever its length.
DIGEST_LENGTHS = frozenset({32, 40, 64})
CONTEXT_HEX_MIN = 16
CONTEXT_HEX_ENTROPY = 2.5
# How far before a value a secret word still names it (characters of the folded text).
CONTEXT_WINDOW = 40
MAX_DECODE_DEPTH = 2

# Detectors run by their own rules below, or that find things that are not credentials.
_DRIVEN_APART = {"Base64 High Entropy String", "Hex High Entropy String", "Secret Keyword", "Public IP (ipv4)"}
_BASE64_TOKEN = re.compile(rf"[A-Za-z0-9+/=_\-]{{{MIN_ENTROPY_LENGTH},}}")
_PRIVATE_KEY_BLOCK = re.compile(r"-----BEGIN[A-Z ]*-----[\s\S]*?(?:-----END[A-Z ]*-----|\Z)|PuTTY-User-Key-File-[\s\S]*")
_KEYWORD_SEGMENT = re.compile(r"[\n,;，。；]")
_HEX_ANY = re.compile(rf"(?<![A-Za-z0-9])[0-9a-fA-F]{{{CONTEXT_HEX_MIN},}}(?![A-Za-z0-9])")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_\-.][A-Za-z0-9]+)*")
# `dbPassword=…`, `appsecret: …`, `reportApiSecret 是 …`: a named value in running text.
_NAMED_VALUE = re.compile(
    r"(?<![A-Za-z0-9_\-.])([A-Za-z][A-Za-z0-9_\-.]{1,48})[\"'”’」]?\s*(?:[:=：]|是|为|\bis\b)\s*[\"'“‘「]?"
    r"([A-Za-z0-9!#$%&()*+\-./:;<=>?@\[\]^_{|}~]{4,})"
)
_CONTEXT_WORDS = re.compile("|".join(CHINESE_SECRET_WORDS))
# What a credential is written in; a finding is widened to the whole run of these around it,
# so a key longer than a detector's fixed-length pattern leaves no tail behind.
_RUN_CHARS = frozenset(string.ascii_letters + string.digits + "_-+/=.~:@%!#$&*?^|")


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


# Every scan asks for each detector's kind; the detectors' names are a fixed, small set.
_KINDS: dict[str, str] = {}


def kind_of(secret_type: str) -> str:
    """'AWS Access Key' -> 'aws_access_key': the short name traces and reasons show."""
    kind = _KINDS.get(secret_type)
    if kind is None:
        kind = _KINDS[secret_type] = re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")
    return kind


@lru_cache(maxsize=1)
def detectors() -> tuple[BasePlugin, ...]:
    """Every pattern detector the installed detect-secrets ships (so an upgrade brings its
    new vendors in), then ours."""
    # detect-secrets leaves the mapping's value type open; every value is a plugin class.
    shipped_classes = cast(dict[str, type[BasePlugin]], get_mapping_from_secret_type_to_class())
    shipped = tuple(cls() for name, cls in sorted(shipped_classes.items()) if name not in _DRIVEN_APART)
    return shipped + EXTRA_DETECTORS


def secret_context(text: str, start: int) -> bool:
    """Does a secret word (AppSecret, api_key, 密钥, token …) stand within CONTEXT_WINDOW
    characters before `start`?"""
    window = text[max(0, start - CONTEXT_WINDOW) : start]
    if _CONTEXT_WORDS.search(window):
        return True
    return any(_names_secret(m.group(0)) for m in _IDENTIFIER.finditer(window))


def _names_secret(identifier: str) -> bool:
    # A bare 'key' or 'secret' in a sentence ('key AK…', 'secret 3f9a…') names the value too.
    return identifier.lower() in {"key", "secret", "secrets"} or is_secret_name(identifier)


_KEYWORD = KeywordDetector()
_BASE64 = Base64HighEntropyString(limit=BASE64_LIMIT)
_HEX = HexHighEntropyString(limit=HEX_LIMIT)


def find_credentials(text: str, *, depth: int = 0) -> list[Finding]:
    """Every credential in `text`, as spans of `text` itself."""
    if not text:
        return []
    view = folded(text)
    found: list[Finding] = []
    for kind, start, end in _scan_view(view.text):
        found.append(_widen(text, view, kind, start, end))
    glued = joined(view)
    if glued.text != view.text:
        for kind, start, end in _scan_patterns(glued.text):
            value = glued.text[start:end]
            o_start, o_end = glued.original_span(start, end)
            crossed = any(c.isspace() for c in text[o_start:o_end])
            if crossed and _BASE64.calculate_shannon_entropy(value) >= JOINED_MIN_ENTROPY:
                found.append(_widen(text, glued, kind, start, end))
    percent = percent_decoded(view)
    if percent.text != view.text:
        for kind, start, end in _scan_view(percent.text):
            found.append(_widen(text, percent, kind, start, end))
    if depth < MAX_DECODE_DEPTH:
        for start, end, decoded in decoded_blobs(view.text):
            inner = find_credentials(decoded, depth=depth + 1)
            for kind in sorted({f.kind for f in inner}):
                found.append(_widen(text, view, kind, start, end))
            if inner:
                found.append(_widen(text, view, "base64_wrapped", start, end))
    return found


def _scan_view(text: str) -> list[tuple[str, int, int]]:
    return _scan_patterns(text) + _scan_keywords(text) + _scan_named(text) + _scan_entropy(text)


def _scan_named(text: str) -> list[tuple[str, int, int]]:
    """A value given to a secret-named identifier in running text, whatever the spelling
    of the name (camelCase, run together): the library's keyword list misses most."""
    hits = []
    for match in _NAMED_VALUE.finditer(text):
        name, value = match.group(1), match.group(2).rstrip(".,;:)]}")
        if len(value) < 4 or not is_secret_name(name) or heuristic.is_templated_secret(value) or value.startswith("$"):
            continue
        if name.lower() == "token" and text[match.end(1) : match.start(2)] == ":":
            continue  # `token:agent-x` is this service's actor notation, not an assignment
        if value.upper().startswith("[REDACTED") or set(value) <= set("*x.X-_"):
            continue
        hits.append(("secret_keyword", match.start(2), match.start(2) + len(value)))
    return hits


def _scan_patterns(text: str) -> list[tuple[str, int, int]]:
    hits = []
    for detector in detectors() + configured_detectors():
        kind = kind_of(detector.secret_type)
        for value in set(detector.analyze_string(text)):
            if kind == "secret_keyword" and not _plausible_value(value):
                continue
            hits.extend((kind, start, end) for start, end in _occurrences(text, value))
    return hits


def _scan_keywords(text: str) -> list[tuple[str, int, int]]:
    """The library's keyword rule for config-style text (`password: x`, `api_key = "x"`),
    per clause, since each of its patterns reports only its first match."""
    hits = []
    for segment in set(_KEYWORD_SEGMENT.split(text)):
        for value in set(_KEYWORD.analyze_string(segment, denylist_regex_to_group=CONFIG_DENYLIST_REGEX_TO_GROUP)):
            value = _ascii_head(value)
            if _plausible_value(value) and not heuristic.is_indirect_reference(segment):
                hits.extend(("secret_keyword", start, end) for start, end in _occurrences(text, value))
    return hits


def _scan_entropy(text: str) -> list[tuple[str, int, int]]:
    hits = []
    kind = kind_of(_HEX.secret_type)
    for match in _HEX_ANY.finditer(text):
        value = match.group(0)
        if value.isdigit() or value.isalpha():
            continue
        if secret_context(text, match.start()):
            # Named as a secret: its length says nothing, a digest-long AppSecret included.
            if _HEX.calculate_shannon_entropy(value) > CONTEXT_HEX_ENTROPY and not heuristic.is_sequential_string(value):
                hits.append((kind, match.start(), match.end()))
            continue
        if len(value) < MIN_ENTROPY_LENGTH or len(value) in DIGEST_LENGTHS or _filtered(value, text):
            continue
        if _HEX.calculate_shannon_entropy(value) > HEX_LIMIT:
            hits.append((kind, match.start(), match.end()))
    for match in _BASE64_TOKEN.finditer(text):
        value = match.group(0).strip("=-_")
        if len(value) < MIN_ENTROPY_LENGTH or _filtered(value, text) or not _mixed_case_and_digits(value):
            continue
        if re.fullmatch(r"[0-9a-fA-F]+", value):
            continue  # hex runs were judged above, by the hex rule
        if _BASE64.calculate_shannon_entropy(value) > BASE64_LIMIT:
            hits.append((kind_of(_BASE64.secret_type), match.start(), match.end()))
    return hits


def _filtered(value: str, line: str) -> bool:
    """detect-secrets' own false-positive heuristics."""
    return (
        heuristic.is_sequential_string(value)
        or heuristic.is_potential_uuid(value)
        or heuristic.is_templated_secret(value)
        or heuristic.is_not_alphanumeric_string(value)
        or heuristic.is_likely_id_string(value, line)
    )


def _mixed_case_and_digits(value: str) -> bool:
    """Random keys mix upper case, lower case and digits; identifiers and URL parameters
    (snake_case, kebab-case) rarely do."""
    return bool(re.search(r"[a-z]", value) and re.search(r"[A-Z]", value) and re.search(r"[0-9]", value))


def _classes(value: str) -> int:
    return sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[+/_\-=]"))


def _ascii_head(value: str) -> str:
    """A keyword value up to the first character that is not printable ASCII: in
    'password: abc123然后出价' the secret is 'abc123'."""
    out = []
    for ch in value:
        if not ("!" <= ch <= "~") or ch in "'\"`,":
            break
        out.append(ch)
    return "".join(out)


def _plausible_value(value: str) -> bool:
    """A keyword's value worth treating as a secret: long enough, not a placeholder or a
    plain number, and mixing kinds of characters as passwords do."""
    if len(value) < 6 or value.isdigit() or heuristic.is_templated_secret(value) or value.startswith("$"):
        return False
    if value.upper().startswith("[REDACTED") or set(value) <= set("*x.X-_"):
        return False
    return _classes(value) >= 2


def _occurrences(text: str, value: str) -> list[tuple[int, int]]:
    spans = []
    if not value:
        return spans
    at = text.find(value)
    while at != -1:
        spans.append((at, at + len(value)))
        at = text.find(value, at + 1)
    return spans


def _is_run_char(ch: str) -> bool:
    return ch in INVISIBLE or all(c in _RUN_CHARS for c in unicodedata.normalize("NFKC", ch))


def _widen(original: str, view: View, kind: str, start: int, end: int) -> Finding:
    if kind == "private_key":
        block = next((m for m in _PRIVATE_KEY_BLOCK.finditer(view.text) if m.start() <= start < m.end() or start <= m.start() < end), None)
        if block is not None:
            start, end = min(start, block.start()), max(end, block.end())
    o_start, o_end = view.original_span(start, end)
    while o_start > 0 and _is_run_char(original[o_start - 1]):
        o_start -= 1
    while o_end < len(original) and _is_run_char(original[o_end]):
        o_end += 1
    return Finding(kind, o_start, o_end)
