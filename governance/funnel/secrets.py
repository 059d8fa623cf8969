"""Find credentials in proposed content and redact them before anything is stored.

A memory that holds a key would hand it to every agent that recalls it, so such a
proposal is refused outright, and the event row and traces keep only the redacted text."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("openai_key", re.compile(r"\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_\-]{16,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9_\-\.=+/]{12,}")),
    ("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)")),
    ("github_token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}")),
    # key=value credentials in English or Chinese: password: x, 密码是 x, api_key=x, 口令：x
    (
        "password",
        re.compile(
            r"(?i)(?:password|passwd|pwd|passcode|secret|api[_\-\s]?key|access[_\-\s]?token|密码|口令|密钥|秘钥)"
            r"\s*(?:is|是|为|[:：=])\s*[\"'“]?([^\s\"'”，。,;；]{4,})"
        ),
    ),
]

REDACTED = "[REDACTED:{kind}]"


@dataclass
class SecretScan:
    text: str
    findings: list[str]


def redact_text(text: str) -> SecretScan:
    findings: list[str] = []
    out = text or ""
    for kind, pattern in _PATTERNS:
        def _sub(match: re.Match[str], kind: str = kind) -> str:
            findings.append(kind)
            if match.groups() and match.group(1):
                whole = match.group(0)
                start = match.start(1) - match.start(0)
                return whole[:start] + REDACTED.format(kind=kind)
            return REDACTED.format(kind=kind)

        out = pattern.sub(_sub, out)
    return SecretScan(text=out, findings=findings)


def redact_data(data: Any) -> tuple[Any, list[str]]:
    """Redact strings anywhere in a JSON value; values under secret-looking keys too."""
    findings: list[str] = []

    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: walk(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if isinstance(value, str):
            if re.fullmatch(r"(?i).*(password|passwd|secret|api[_\-]?key|token|密码|密钥)", key) and value:
                findings.append("password")
                return REDACTED.format(kind="password")
            scan = redact_text(value)
            findings.extend(scan.findings)
            return scan.text
        return value

    return walk(data), findings


def contains_secret(value: Any) -> bool:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return bool(redact_text(text).findings)
