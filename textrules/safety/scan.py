"""Scan a text or a JSON value: credentials are cut out, personal data masked, and what was
found is reported by kind only, never by value."""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, TypeVar

from textrules.errors import InvalidInput
from textrules.safety.credentials import find_credentials, secret_context
from textrules.safety.names import is_secret_name
from textrules.safety.normalise import folded
from textrules.safety.personal import find_personal

T = TypeVar("T")

REDACTED = "[REDACTED:{kind}]"
# Kinds that say only "looks secret"; a vendor's name is the better label for a cut.
GENERIC_KINDS = frozenset({"base64_high_entropy_string", "hex_high_entropy_string", "secret_keyword", "base64_wrapped"})


@dataclass(frozen=True)
class Findings:
    """What a scan found, by kind (sorted, unique): safe to store in a trace."""

    credentials: tuple[str, ...] = ()
    personal: tuple[str, ...] = ()

    def __add__(self, other: Findings) -> Findings:
        return Findings(
            credentials=tuple(sorted({*self.credentials, *other.credentials})),
            personal=tuple(sorted({*self.personal, *other.personal})),
        )

    def __bool__(self) -> bool:
        return bool(self.credentials or self.personal)

    def as_dict(self) -> dict[str, list[str]]:
        return {"secrets": list(self.credentials), "personal": list(self.personal)}


@dataclass(frozen=True)
class Scan(Findings):
    """A scanned text: `text` is safe to store."""

    text: str = field(default="")


class _ScanCache:
    """Recent scans by a digest of the text and the operator's extra patterns (the only
    other input of a scan). A funnel decision scans the same strings many times: stage
    names, criteria keys and the proposal quoted by several stages, each row once when it
    is built and again by the safety net on save. Keyed by digest, so the cache never
    holds a credential it was handed; the redacted text it keeps is what gets stored."""

    SIZE = 8192

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[bytes, str], Scan] = OrderedDict()

    def get(self, key: tuple[bytes, str]) -> Scan | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[bytes, str], scan: Scan) -> None:
        with self._lock:
            self._entries[key] = scan
            while len(self._entries) > self.SIZE:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_scans = _ScanCache()


def scan_text(text: str) -> Scan:
    """Redact every credential in `text` and mask its personal data."""
    if not text:
        return Scan(text=text or "")
    from lingix_config import config

    key = (hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).digest(), config().memory_safety_extra_patterns)
    found = _scans.get(key)
    if found is None:
        found = _scan_uncached(text)
        _scans.put(key, found)
    return found


def _scan_uncached(text: str) -> Scan:
    findings = find_credentials(text)
    spans = _merge([(f.start, f.end, f.kind) for f in findings])
    redacted = _replace(text, [(s, e, REDACTED.format(kind=k)) for s, e, k in spans])
    view = folded(redacted)
    personal = []
    for finding in find_personal(view.text):
        start, end = view.original_span(finding.start, finding.end)
        personal.append((start, end, finding.mask, finding.kind))
    masked = _replace(redacted, [(s, e, m) for s, e, m, _ in personal])
    return Scan(text=masked, credentials=tuple(sorted({f.kind for f in findings})), personal=tuple(sorted({k for *_, k in personal})))


def redact(text: str) -> str:
    """`text` with credentials cut out and personal data masked, for places that only
    store the text (notes, reasons, audit details)."""
    return scan_text(text).text


def scan_data(value: Any) -> tuple[Any, Findings]:
    """A JSON value with every string scanned, keys included. Everything under a
    secret-named key (password, dbPassword, appsecret, 密码 …; textrules.safety.names), at
    any depth and whatever it holds, a number included, is redacted."""
    found = Findings()
    cut = REDACTED.format(kind="secret_keyword")

    def walk(item: Any, secret: bool = False) -> Any:
        nonlocal found
        if isinstance(item, dict):
            out: dict[Any, Any] = {}
            for k, v in item.items():
                clean_key = k
                if isinstance(k, str):
                    scanned = scan_text(k)
                    if scanned:  # most keys and strings hold nothing: no new Findings to build
                        found += scanned
                    clean_key = scanned.text
                    while clean_key in out:
                        clean_key += "_"
                out[clean_key] = walk(v, secret or (isinstance(k, str) and is_secret_name(k)))
            return out
        if isinstance(item, (list, tuple)):
            return [walk(v, secret) for v in item]
        if secret and not isinstance(item, bool) and isinstance(item, (str, int, float)):
            if item == "" or (isinstance(item, str) and item.startswith("[REDACTED:")):
                return item
            found += Findings(credentials=("secret_keyword",))
            return cut
        if isinstance(item, str):
            scanned = scan_text(item)
            if scanned:
                found += scanned
            return scanned.text
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 10**10:
            # A phone or card number sent as a JSON number is personal data all the same.
            scanned = scan_text(str(item))
            if scanned:
                found += scanned
                return scanned.text
        return item

    return walk(value), found


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping findings become one cut, named by its most specific kind."""
    merged: list[list[Any]] = []
    for start, end, kind in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
            if merged[-1][2] in GENERIC_KINDS and kind not in GENERIC_KINDS:
                merged[-1][2] = kind
            continue
        merged.append([start, end, kind])
    return [(s, e, k) for s, e, k in merged]


def _replace(text: str, spans: list[tuple[int, int, str]]) -> str:
    out, at = [], 0
    for start, end, replacement in sorted(spans):
        if start < at:
            continue
        out.append(text[at:start])
        out.append(replacement)
        at = end
    out.append(text[at:])
    return "".join(out)


class CredentialRefused(InvalidInput):
    """A trusted path (admin edit, import) was handed a credential: it stores nothing."""

    def __init__(self, credentials: tuple[str, ...], *, where: str = "") -> None:
        self.credentials = credentials
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}holds a credential ({', '.join(credentials)}); remove it and try again")


def refuse_credentials(value: T, *, where: str = "") -> T:
    """`value` (a text or a JSON value) with its personal data masked, for paths that write
    without the funnel. A credential is not redacted and written anyway: the whole write
    is refused with CredentialRefused, naming the kinds (and `where`, e.g. "line 12")."""
    if isinstance(value, str):
        scanned = scan_text(value)
        clean, found = scanned.text, Findings(scanned.credentials, scanned.personal)
    else:
        clean, found = scan_data(value)
    if found.credentials:
        raise CredentialRefused(found.credentials, where=where)
    return clean  # type: ignore[return-value]


_ENTROPY_KINDS = frozenset({"base64_high_entropy_string", "hex_high_entropy_string"})
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+/=.]{4,}")
# How many turns in a row one key may be spread over: far more than anybody types it in,
# few enough that a chat of one-word turns is not glued into one long string.
MAX_PIECES = 8


def scan_turns(texts: list[str], *, roles: list[str] | None = None) -> tuple[list[str], Findings]:
    """Each turn of a conversation scanned, and the joined view of turns in a row: a key
    typed in pieces ('前半段 sk-proj-Ab12…', 'Cd34…', 'Ef56… 是最后一段') is one credential
    once the last token of a turn meets the first token of the next, and of the one after
    that while a turn holds that one token only; each turn loses its piece. With `roles`,
    the user turns are also chained among themselves, so assistant turns between the
    pieces do not hide them."""
    scans = scan_conversation(texts, roles=roles)
    found = Findings()
    for scan in scans:
        found += scan
    return [scan.text for scan in scans], found


def scan_conversation(texts: list[str], *, roles: list[str] | None = None) -> list[Scan]:
    """scan_turns turn by turn: each turn's safe text with what was found in it, a key
    spread over turns counted in every turn that held a piece of it (a caller that takes
    only some of the turns still knows they held a credential)."""
    cuts: list[list[tuple[int, int, str]]] = [[] for _ in texts]
    orders = [list(range(len(texts)))]
    if roles is not None:
        orders.append([i for i, role in enumerate(roles) if role == "user"])
    runs = [list(_TOKEN_RUN.finditer(text)) for text in texts]
    for order in orders:
        for at, i in enumerate(order):
            if not runs[i]:
                continue
            last = runs[i][-1]
            probe = texts[i][: last.end()]
            # (turn, span in the turn, where the piece starts in the probe)
            pieces = [(i, last.start(), last.end(), last.start())]
            for j in order[at + 1 : at + MAX_PIECES]:
                if not runs[j]:
                    break
                first = runs[j][0]
                pieces.append((j, first.start(), first.end(), len(probe)))
                probe += first.group(0)
                # Each length is tried: a pattern of a fixed length fails once one more piece is glued on.
                for f in find_credentials(probe):
                    touched = [p for p in pieces if p[3] < f.end and f.start < p[3] + (p[2] - p[1])]
                    if len(touched) < 2:
                        continue
                    if f.kind in _ENTROPY_KINDS and not secret_context(probe, f.start):
                        # A digest in one turn and a number opening the next read as one
                        # random string: without a vendor's shape, only a secret word
                        # before it (AppSecret, 密钥, token …) makes the glued run a key.
                        continue
                    for turn, start, end, _ in touched:
                        cuts[turn].append((start, end, f.kind))
                if len(runs[j]) > 1:
                    # The next turn's piece would not follow this one's first token.
                    break
    out: list[Scan] = []
    for text, spans in zip(texts, cuts, strict=True):
        cut = _replace(text, [(s, e, REDACTED.format(kind=k)) for s, e, k in _merge(spans)])
        scanned = scan_text(cut)
        across = {k for _, _, k in spans}
        out.append(Scan(text=scanned.text, credentials=tuple(sorted({*scanned.credentials, *across})), personal=scanned.personal))
    return out


class SecretInCode(InvalidInput):
    """An identifier (an advertiser or category code, an idempotency key, a session id)
    that holds a credential or personal data: refused, since a code cannot be redacted
    without becoming another code."""


def refuse_secret_code(value: str | None, *, field_name: str) -> str | None:
    """`value` unchanged, or SecretInCode naming the field and the kinds found. Random
    identifiers are normal here (idempotency keys, session ids), so only a named shape
    counts, not high entropy alone."""
    if not value:
        return value
    scanned = scan_text(value)
    specific = tuple(k for k in scanned.credentials if k not in _ENTROPY_KINDS)
    if specific or scanned.personal:
        kinds = ", ".join(specific + scanned.personal)
        raise SecretInCode(f"{field_name} looks like a credential or personal data ({kinds}); use a plain code")
    return value
