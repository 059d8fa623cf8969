"""Trusted bulk load and lossless export (CONTRACT.md JSONL format).

Import bypasses the judge, which is why it is all-or-nothing, validates every line
before writing any, and leaves an audit entry."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memories.constants import Attribution, Grounding, Layer, Source, Status, Tier
from memories.hashing import content_hash
from memories.models import Memory
from memories.presenters import _iso, memory_dict

MAX_CONTENT_CHARS = 20_000


class ImportFailed(Exception):
    def __init__(self, errors: list[str]):
        super().__init__(errors[0] if errors else "import failed")
        self.errors = errors


@dataclass
class ImportReport:
    imported: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"imported": self.imported, "skipped": self.skipped, "errors": self.errors, "dry_run": self.dry_run}


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


def _hard_rule_errors(parsed: list[tuple[int, dict[str, Any]]], *, actor: str) -> list[str]:
    """An import is an operator's act, but the hard rules still hold: an L4 line must be
    derived from an L2 memory (in the file or stored), an L3 line needs an observation
    time (its own, or when it was recorded)."""
    from governance.hard_rules import Authority, WriteOrigin, layer_refusal

    authority = Authority(origin=WriteOrigin.IMPORT, actor=actor, person=True, operator=True)
    layer_in_file = {f["id"]: f["layer"] for _, f in parsed if f["id"] is not None}
    wanted = {i for _, f in parsed for i in f["derived_from"] if i not in layer_in_file}
    stored = dict(Memory.objects.filter(pk__in=wanted).values_list("pk", "layer"))
    errors = []
    for number, fields in parsed:
        sources = [Memory(pk=i, layer=layer_in_file.get(i) or stored.get(i, "")) for i in fields["derived_from"]]
        observed = fields["observed_at"] or fields["created_at"]
        refusal = layer_refusal(layer=fields["layer"], source=fields["source"], attribution=fields["source_attribution"],
                                authority=authority, derived_from=sources, observed_at=observed or timezone.now())
        if refusal is not None:
            errors.append(f"line {number}: {refusal.reason}")
    return errors


def memories_import(
    *,
    lines: Iterable[str],
    actor: str,
    dry_run: bool = False,
    embed: bool = True,
    label: str = "",
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Validate every line, then write all of them in one transaction (or none)."""
    from governance.audit import audit_record
    from governance.hard_rules import l3_expires_at
    from memories.services import schedule_embedding

    parsed: list[tuple[int, dict[str, Any]]] = []
    errors: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        fields, problems = parse_line(raw)
        errors.extend(f"line {number}: {problem}" for problem in problems)
        if fields is not None:
            parsed.append((number, fields))
    ids_in_file = {f["id"] for _, f in parsed if f["id"] is not None}
    # Within the file: an id or a superseded memory may appear once (one version chain).
    first_line: dict[tuple[str, int], int] = {}
    for number, fields in parsed:
        for key in ("id", "supersedes"):
            value = fields[key]
            if value is None:
                continue
            if (key, value) in first_line:
                what = "id" if key == "id" else "a replacement for memory"
                errors.append(f"line {number}: {what} {value} already appears on line {first_line[(key, value)]}")
            else:
                first_line[(key, value)] = number
        if fields["id"] is not None and fields["id"] == fields["supersedes"]:
            errors.append(f"line {number}: a memory cannot supersede itself")
    existing = set(Memory.objects.filter(pk__in=ids_in_file).values_list("pk", "content_hash"))
    existing_ids = {pk for pk, _ in existing}
    for number, fields in parsed:
        target = fields["supersedes"]
        if target is not None and target not in ids_in_file and not Memory.objects.filter(pk=target).exists():
            errors.append(f"line {number}: supersedes {target}, which is neither in the file nor stored")
    for number, fields in parsed:
        if fields["id"] in existing_ids and (fields["id"], content_hash(fields["content"])) not in existing:
            errors.append(f"line {number}: id {fields['id']} already holds a different memory")
    errors.extend(_hard_rule_errors(parsed, actor=actor))
    report = ImportReport(dry_run=dry_run, errors=errors)
    if errors:
        raise ImportFailed(errors)

    to_write = [(n, f) for n, f in parsed if f["id"] is None or f["id"] not in existing_ids]
    report.skipped = len(parsed) - len(to_write)
    report.imported = len(to_write)
    if dry_run:
        return report

    created_ids: list[int] = []
    with transaction.atomic():
        now = timezone.now()
        for _, fields in to_write:
            created = fields["created_at"] or now
            expires = fields["expires_at"]
            if fields["layer"] == Layer.L3:
                fields["observed_at"] = fields["observed_at"] or created
                expires = expires or l3_expires_at(fields["observed_at"])
            memory = Memory(
                id=fields["id"],
                layer=fields["layer"],
                content=fields["content"],
                data=fields["data"],
                advertiser=fields["advertiser"],
                business_line=fields["business_line"],
                category=fields["category"],
                source=fields["source"],
                source_attribution=fields["source_attribution"],
                grounding=fields["grounding"],
                importance=fields["importance"],
                confidence=fields["confidence"],
                tier=fields["tier"],
                status=fields["status"],
                version=fields["version"],
                valid_from=fields["valid_from"] or created,
                valid_to=fields["valid_to"],
                observed_at=fields["observed_at"],
                expires_at=expires,
                access_count=fields["access_count"],
                last_accessed_at=fields["last_accessed_at"],
                reinforcement_count=fields["reinforcement_count"],
                content_hash=content_hash(fields["content"]),
                created_at=created,
            )
            memory.save(force_insert=True)
            fields["stored_id"] = memory.pk
            created_ids.append(memory.pk)
            if progress:
                progress(1)
        for _, fields in to_write:
            if fields["supersedes"] is not None:
                Memory.objects.filter(pk=fields["stored_id"]).update(supersedes_id=fields["supersedes"])
            if fields["derived_from"]:
                Memory.objects.get(pk=fields["stored_id"]).derived_from.set(fields["derived_from"])
        if any(f["id"] is not None for _, f in to_write):
            # Explicit ids leave PostgreSQL's sequence behind; SQLite needs nothing.
            with connection.cursor() as cursor:
                for statement in connection.ops.sequence_reset_sql(no_style(), [Memory]):
                    cursor.execute(statement)
        audit_record(
            event_type="memory.import",
            actor=actor,
            extra={"imported": report.imported, "skipped": report.skipped, "label": label, "first_id": created_ids[0] if created_ids else None, "last_id": created_ids[-1] if created_ids else None},
        )
        if embed:
            schedule_embedding(created_ids)
    return report
