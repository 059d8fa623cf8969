"""The JSONL line format (docs/cli.md, "Import/export format"): lossless export, and the validation of one import
line. The audited, all-or-nothing write of a whole file lives one app up, beside its
audit row."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memories.constants import Attribution, Grounding, Layer, MemoryKind, Source, Status, Tier
from memories.models import Memory
from memories.presenters import _iso, memory_dict
from textrules.claims import Claim

MAX_CONTENT_CHARS = 20_000


def export_line(memory: Memory) -> dict[str, Any]:
    """memory_dict plus what a lossless round trip needs."""
    return {
        **memory_dict(memory),
        "supersedes": memory.supersedes_id,
        "valid_from": _iso(memory.valid_from),
        "valid_to": _iso(memory.valid_to),
        "observed_at": _iso(memory.observed_at),
        "access_count": memory.access_count,
        "last_accessed_at": _iso(memory.last_accessed_at),
        "reinforcement_count": memory.reinforcement_count,
        "derived_from": sorted(m.pk for m in memory.derived_from.all()),
        "claim": memory.claim or {},
    }


def export_lines(memories: Iterable[Memory]) -> Iterator[str]:
    for memory in memories:
        yield json.dumps(export_line(memory), ensure_ascii=False, sort_keys=True)


# --- validation -------------------------------------------------------------------------
def _choice(row: dict, key: str, choices: type, default: str | None, errors: list[str]) -> str | None:
    value = row.get(key, default)
    if value is None and default is None:
        return None
    if value not in choices.values:
        errors.append(f"{key} must be one of {', '.join(choices.values)}, got {value!r}")
    return value


def _when(row: dict, key: str, errors: list[str]) -> datetime | None:
    value = row.get(key)
    if value in (None, ""):
        return None
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        errors.append(f"{key} is not an ISO-8601 date-time: {value!r}")
        return None
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, timezone.get_default_timezone())


def _number(row: dict, key: str, default: float, low: float, high: float, errors: list[str]) -> float:
    value = row.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (low <= value <= high):
        errors.append(f"{key} must be a number from {low:g} to {high:g}, got {value!r}")
        return default
    return float(value)


def _count(row: dict, key: str, errors: list[str]) -> int:
    value = row.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        errors.append(f"{key} must be a non-negative integer, got {value!r}")
        return 0
    return value


def parse_line(raw: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Validate one JSONL line; returns the fields for Memory(...) or the problems."""
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, [f"not valid JSON ({exc.msg})"]
    if not isinstance(row, dict):
        return None, ["each line must be a JSON object"]
    errors: list[str] = []
    content = row.get("content")
    if not isinstance(content, str) or not content.strip():
        errors.append("content must be a non-empty string")
        content = ""
    elif len(content) > MAX_CONTENT_CHARS:
        errors.append(f"content is longer than {MAX_CONTENT_CHARS} characters")
    advertiser = row.get("advertiser")
    if advertiser is not None and (not isinstance(advertiser, str) or not advertiser.strip() or len(advertiser) > 64):
        errors.append("advertiser must be null or a non-empty string of at most 64 characters")
    for key in ("business_line", "category"):
        if not isinstance(row.get(key, ""), str) or len(row.get(key, "")) > 64:
            errors.append(f"{key} must be a string of at most 64 characters")
    data = row.get("data", {})
    if not isinstance(data, dict):
        errors.append("data must be a JSON object")
    claim = row.get("claim") or {}
    if not isinstance(claim, dict):
        errors.append("claim must be a JSON object")
    fields: dict[str, Any] = {
        "layer": _choice(row, "layer", Layer, None, errors) if "layer" in row else errors.append("layer is required"),
        "content": content.strip(),
        "advertiser": advertiser,
        "business_line": row.get("business_line", "") or "",
        "category": row.get("category", "") or "",
        "source": _choice(row, "source", Source, Source.HUMAN, errors),
        "importance": _number(row, "importance", 5.0, 0, 10, errors),
        "confidence": _number(row, "confidence", 0.9, 0, 1, errors),
        "data": data if isinstance(data, dict) else {},
        # A claim in the line is kept in its normal shape (anything else in it dropped), an
        # empty one too: an export line says {} for a row not yet read (the backfill's work),
        # and a restore keeps it so. Only a line without the key is read from the content.
        "claim": Claim.from_dict(claim).as_dict() if isinstance(claim, dict) and claim else {},
        "claim_in_line": "claim" in row,
        "status": _choice(row, "status", Status, Status.ACTIVE, errors),
        "source_attribution": _choice(row, "source_attribution", Attribution, Attribution.IMPORT, errors),
        "grounding": _choice(row, "grounding", Grounding, Grounding.GROUNDED, errors),
        "tier": _choice(row, "tier", Tier, Tier.WORKING, errors),
        "created_at": _when(row, "created_at", errors),
        "expires_at": _when(row, "expires_at", errors),
        "valid_from": _when(row, "valid_from", errors),
        "valid_to": _when(row, "valid_to", errors),
        "observed_at": _when(row, "observed_at", errors),
        "last_accessed_at": _when(row, "last_accessed_at", errors),
        "access_count": _count(row, "access_count", errors),
        "reinforcement_count": _count(row, "reinforcement_count", errors),
        "version": _count(row, "version", errors) if "version" in row else 1,
        # An export line carries its organisation (possibly empty: not organised yet) and
        # keeps it; a line without these keys is organised like a governed write.
        "kind": _choice(row, "kind", MemoryKind, "", errors) if row.get("kind") else "",
        "category_path": row.get("category_path") if isinstance(row.get("category_path"), str) else "",
        "organised_in_line": "kind" in row,
    }
    if fields["version"] < 1:
        errors.append("version must be at least 1")
    for key in ("id", "supersedes"):
        value = row.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            errors.append(f"{key} must be a positive integer")
    derived = row.get("derived_from", [])
    if not isinstance(derived, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in derived):
        errors.append("derived_from must be a list of memory ids")
    fields["id"] = row.get("id")
    fields["supersedes"] = row.get("supersedes")
    fields["derived_from"] = derived if isinstance(derived, list) else []
    return (None if errors else fields), errors
