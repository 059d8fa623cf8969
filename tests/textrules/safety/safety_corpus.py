"""The committed safety corpora (tests/data/safety_*.jsonl) and the check that a value is
gone from stored bytes in every form it could be stored in."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


HOSTILE = load("safety_hostile.jsonl")
BENIGN = load("safety_benign.jsonl")


def forms(case: dict) -> set[str]:
    """Every way the value of a case could sit in a database file: as sent and as it
    reads after normalising, raw, JSON-escaped and lowercased."""
    out: set[str] = set()
    for value in {case["value"], case["surface"]}:
        for form in (value, json.dumps(value, ensure_ascii=True)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]):
            out.update({form, form.lower()})
    return {f for f in out if f}


def leaks(blob: bytes, case: dict) -> list[str]:
    lowered = blob.lower()
    return [f for f in forms(case) if f.encode("utf-8") in blob or f.lower().encode("utf-8") in lowered]
