"""Trusted bulk load of CONTRACT.md JSONL lines.

Import bypasses the judge, which is why it is all-or-nothing, validates every line
(memories.transfer.parse_line) before writing any, and leaves an audit entry in the same
transaction."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils import timezone

from governance.audit import audit_record
from governance.constants import AuditEvent
from governance.knowledge.entities.link import link_entities_bulk
from governance.knowledge.organise import category_node_for, category_refresh, make_abstracts, organise_fields
from governance.write.hard_rules import Authority, WriteOrigin, l3_expires_at, layer_refusal
from memories.constants import Layer
from memories.embeddings.store import schedule_embedding
from memories.hashing import content_hash
from memories.lifecycle.db import chunks
from memories.models import PATH_SEPARATOR, Memory
from memories.transfer import parse_line
from textrules.safety import CredentialRefused, refuse_credentials


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


def _hard_rule_errors(parsed: list[tuple[int, dict[str, Any]]], *, actor: str) -> list[str]:
    """An import is an operator's act, but the hard rules still hold: an L4 line must be
    derived from an L2 memory (in the file or stored), an L3 line needs an observation
    time (its own, or when it was recorded)."""
    authority = Authority(origin=WriteOrigin.IMPORT, actor=actor, person=True, operator=True)
    layer_in_file = {f["id"]: f["layer"] for _, f in parsed if f["id"] is not None}
    wanted = {i for _, f in parsed for i in f["derived_from"] if i not in layer_in_file}
    stored = dict(Memory.objects.filter(pk__in=wanted).values_list("pk", "layer"))
    errors = []
    for number, fields in parsed:
        sources = [Memory(pk=i, layer=layer_in_file.get(i) or stored.get(i, "")) for i in fields["derived_from"]]
        observed = fields["observed_at"] or fields["created_at"]
        refusal = layer_refusal(
            layer=fields["layer"],
            source=fields["source"],
            attribution=fields["source_attribution"],
            authority=authority,
            derived_from=sources,
            observed_at=observed or timezone.now(),
        )
        if refusal is not None:
            errors.append(f"line {number}: {refusal.reason}")
    return errors


def _organisation(fields: dict[str, Any], nodes: dict[tuple, Any]) -> dict[str, Any]:
    """Kind, category node and abstracts of an imported line: as the export recorded them
    (a restore stays lossless), else decided as a governed write decides them."""
    if not fields["organised_in_line"]:
        return organise_fields(
            content=fields["content"],
            layer=fields["layer"],
            advertiser=fields["advertiser"],
            data=fields["data"],
            category=fields["category"],
            business_line=fields["business_line"],
            node_cache=nodes,
        ).model_fields()
    path = [part for part in fields["category_path"].split(PATH_SEPARATOR) if part.strip()]
    abstracts = make_abstracts(fields["content"]) if fields["kind"] else None
    return {
        "kind": fields["kind"],
        "category_node": category_node_for(advertiser=fields["advertiser"], path=path, cache=nodes) if path else None,
        "abstract_line": abstracts.line[:240] if abstracts else "",
        "abstract_paragraph": abstracts.paragraph if abstracts else "",
    }


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
    parsed: list[tuple[int, dict[str, Any]]] = []
    errors: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        fields, problems = parse_line(raw)
        errors.extend(f"line {number}: {problem}" for problem in problems)
        if fields is not None:
            try:
                fields = refuse_credentials(fields, where=f"line {number}")
            except CredentialRefused as exc:
                errors.append(str(exc))
                continue
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
    touched_nodes: set[int] = set()
    nodes: dict[tuple, Any] = {}
    with transaction.atomic():
        now = timezone.now()
        for _, fields in to_write:
            created = fields["created_at"] or now
            expires = fields["expires_at"]
            if fields["layer"] == Layer.L3:
                fields["observed_at"] = fields["observed_at"] or created
                expires = expires or l3_expires_at(fields["observed_at"])
            organised = _organisation(fields, nodes)
            if organised.get("category_node") is not None:
                touched_nodes.add(organised["category_node"].pk)
            memory = Memory(
                **organised,
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
        # A restore brings old observations back, not new signals: no suggestions here
        # (governance.knowledge.suggestions.suggestions_for_live_signals makes them on request).
        for chunk in chunks(created_ids, 1000):
            link_entities_bulk(list(Memory.objects.filter(pk__in=chunk).defer("embedding")))
        if any(f["id"] is not None for _, f in to_write):
            # Explicit ids leave PostgreSQL's sequence behind; SQLite needs nothing.
            with connection.cursor() as cursor:
                for statement in connection.ops.sequence_reset_sql(no_style(), [Memory]):
                    cursor.execute(statement)
        category_refresh(touched_nodes)
        audit_record(
            event_type=AuditEvent.MEMORY_IMPORT,
            actor=actor,
            extra={
                "imported": report.imported,
                "skipped": report.skipped,
                "label": label,
                "first_id": created_ids[0] if created_ids else None,
                "last_id": created_ids[-1] if created_ids else None,
                # L1 rules are named one by one: every write that reaches L1 is in the audit log.
                "l1_ids": [f["stored_id"] for _, f in to_write if f["layer"] == Layer.L1],
            },
        )
        if embed:
            schedule_embedding(created_ids)
    return report
