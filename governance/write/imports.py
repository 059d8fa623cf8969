"""Trusted bulk load of CONTRACT.md JSONL lines.

Import bypasses the judge, which is why it is all-or-nothing, validates every line
(memories.transfer.parse_line) before writing any, and leaves an audit entry in the same
transaction."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from governance.audit import audit_record
from governance.constants import AuditEvent
from governance.knowledge.organise import category_node_for, category_refresh, make_abstracts, organise_fields
from governance.models import LayerPolicy
from governance.write.erase import ErasedContent, tombstone_refuse
from governance.write.hard_rules import Authority, WriteOrigin, l2_maturity_gaps, l3_expires_at, layer_refusal
from governance.write.memory import governed_restore
from memories.constants import Layer, Status
from memories.embeddings.store import schedule_embedding
from memories.hashing import content_hash
from memories.locks import memory_write_lock
from memories.models import PATH_SEPARATOR, Memory
from memories.transfer import parse_line
from textrules.claims import extract_claim
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


def _lineage_source(pk: int, *, stored: dict[int, Memory], restored: dict[int, dict[str, Any]], now: datetime) -> Memory | None:
    """The memory an id names, as the import will leave it: the stored row when there is
    one (its stored layer and scope, whatever a line of the file says), else the line of
    this file that restores it (with its recorded age and counts), else None."""
    if pk in stored:
        return stored[pk]
    fields = restored.get(pk)
    if fields is None:
        return None
    return Memory(
        pk=pk,
        layer=fields["layer"],
        advertiser=fields["advertiser"],
        status=fields["status"],
        created_at=fields["created_at"] or now,
        access_count=fields["access_count"],
        reinforcement_count=fields["reinforcement_count"],
        importance=fields["importance"],
        grounding=fields["grounding"],
    )


def _scope(advertiser: str | None) -> str:
    return advertiser or "global"


def _lineage_errors(fields: dict[str, Any], sources: list[Memory | None], target: Memory | None, *, policy, now: datetime) -> list[str]:
    """The lineage rules of one line. An L4 template derives only from mature L2 memories
    of its own scope; any other line derives from its own scope or global memories; a new
    version replaces a memory of its own scope only."""
    errors = []
    advertiser = fields["advertiser"]
    for pk, source in zip(fields["derived_from"], sources, strict=True):
        if source is None:
            errors.append(f"derived from {pk}, which is neither in the file nor stored")
        elif fields["layer"] == Layer.L4:
            if source.advertiser != advertiser:
                errors.append(f"an L4 template of {_scope(advertiser)} cannot derive from memory {pk} of {_scope(source.advertiser)}")
            elif source.status == Status.PENDING_REVIEW:
                errors.append(f"memory {pk} is still pending review; an L4 template derives only from an accepted L2 memory")
            else:
                gaps = l2_maturity_gaps(source, now=now, policy=policy) if policy is not None else ["no L2 layer policy"]
                if gaps:
                    where = "stored" if source.pk and not source._state.adding else "in this file"
                    errors.append(f"memory {pk} ({where}) is not a mature L2 memory: {'; '.join(gaps)}")
        elif source.advertiser not in {advertiser, None}:
            errors.append(f"a {_scope(advertiser)} memory cannot derive from memory {pk} of {_scope(source.advertiser)}")
    if target is not None and target.advertiser != advertiser:
        errors.append(
            f"supersedes memory {target.pk} of {_scope(target.advertiser)}; a new version stays in its memory's scope ({_scope(advertiser)})"
        )
    return errors


def _hard_rule_errors(parsed: list[tuple[int, dict[str, Any]]], *, actor: str, existing_ids: set[int]) -> list[str]:
    """An import is an operator's act, but the hard rules still hold, judged on what is
    stored: an L4 line must derive from mature L2 memories of its own scope (stored, or
    restored by this file with recorded age and use), a version chain stays in one scope,
    an L3 line needs an observation time (its own, or when it was recorded). Lines whose
    id is already stored write nothing and are not judged again."""
    authority = Authority(origin=WriteOrigin.IMPORT, actor=actor, person=True, operator=True)
    now = timezone.now()
    policy = LayerPolicy.objects.filter(layer=Layer.L2).first()
    restored = {f["id"]: f for _, f in parsed if f["id"] is not None and f["id"] not in existing_ids}
    wanted = {i for _, f in parsed for i in [*f["derived_from"], f["supersedes"]] if i is not None} - set(restored)
    stored = Memory.objects.only(
        "id", "layer", "advertiser", "status", "created_at", "access_count", "reinforcement_count", "importance", "grounding"
    ).in_bulk(wanted)
    errors = []
    for number, fields in parsed:
        if fields["id"] in existing_ids:
            continue
        sources = [_lineage_source(i, stored=stored, restored=restored, now=now) for i in fields["derived_from"]]
        target = None
        if fields["supersedes"] is not None:
            target = _lineage_source(fields["supersedes"], stored=stored, restored=restored, now=now)
        problems = _lineage_errors(fields, sources, target, policy=policy, now=now)
        if not problems:
            refusal = layer_refusal(
                layer=fields["layer"],
                source=fields["source"],
                attribution=fields["source_attribution"],
                authority=authority,
                derived_from=[m for m in sources if m is not None],
                observed_at=fields["observed_at"] or fields["created_at"] or now,
            )
            problems = [refusal.reason] if refusal is not None else []
        errors += [f"line {number}: {problem}" for problem in problems]
    return errors


def _stored_errors(parsed: list[tuple[int, dict[str, Any]]], *, actor: str) -> tuple[list[str], set[int]]:
    """The checks that read stored rows; the write runs them again once it holds the lock,
    so a memory changed since the first look cannot slip through. Returns the errors and
    the ids the file names that are already stored (their lines are skipped)."""
    ids_in_file = {f["id"] for _, f in parsed if f["id"] is not None}
    existing = set(Memory.objects.filter(pk__in=ids_in_file).values_list("pk", "content_hash"))
    existing_ids = {pk for pk, _ in existing}
    targets = {f["supersedes"] for _, f in parsed if f["supersedes"] is not None} - ids_in_file
    stored_targets = set(Memory.objects.filter(pk__in=targets).values_list("pk", flat=True))
    errors = []
    for number, fields in parsed:
        target = fields["supersedes"]
        if target is not None and target not in ids_in_file and target not in stored_targets:
            errors.append(f"line {number}: supersedes {target}, which is neither in the file nor stored")
    for number, fields in parsed:
        if fields["id"] in existing_ids and (fields["id"], content_hash(fields["content"])) not in existing:
            errors.append(f"line {number}: id {fields['id']} already holds a different memory")
    return errors + _hard_rule_errors(parsed, actor=actor, existing_ids=existing_ids), existing_ids


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
                # Erased words are not restored by a file either (an old export, a backup).
                tombstone_refuse(texts=(fields["content"],), advertiser=fields.get("advertiser"))
            except (CredentialRefused, ErasedContent) as exc:
                errors.append(str(exc) if isinstance(exc, CredentialRefused) else f"line {number}: {exc}")
                continue
            parsed.append((number, fields))
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
    stored_errors, existing_ids = _stored_errors(parsed, actor=actor)
    errors += stored_errors
    report = ImportReport(dry_run=dry_run, errors=errors)
    if errors:
        raise ImportFailed(errors)

    to_write = [(n, f) for n, f in parsed if f["id"] is None or f["id"] not in existing_ids]
    report.skipped = len(parsed) - len(to_write)
    report.imported = len(to_write)
    if dry_run:
        return report

    touched_nodes: set[int] = set()
    nodes: dict[tuple, Any] = {}
    with transaction.atomic():
        # Every scope at once, exclusively: the file may write any advertiser, and its
        # lineage was judged on stored rows that no governed write may change meanwhile.
        memory_write_lock(advertisers=[None])
        errors, existing_ids = _stored_errors(parsed, actor=actor)
        if errors:
            raise ImportFailed(errors)
        to_write = [(n, f) for n, f in parsed if f["id"] is None or f["id"] not in existing_ids]
        report.skipped = len(parsed) - len(to_write)
        report.imported = len(to_write)
        now = timezone.now()
        rows, supersedes, derived = [], {}, {}
        for position, (_, fields) in enumerate(to_write):
            created = fields["created_at"] or now
            expires = fields["expires_at"]
            if fields["layer"] == Layer.L3:
                fields["observed_at"] = fields["observed_at"] or created
                expires = expires or l3_expires_at(fields["observed_at"])
            organised = _organisation(fields, nodes)
            if organised.get("category_node") is not None:
                touched_nodes.add(organised["category_node"].pk)
            rows.append(
                dict(
                    **organised,
                    id=fields["id"],
                    layer=fields["layer"],
                    content=fields["content"],
                    data=fields["data"],
                    claim=fields["claim"]
                    if fields["claim_in_line"]
                    else extract_claim(fields["content"], advertiser=fields["advertiser"], data=fields["data"]).as_dict(),
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
            )
            if fields["supersedes"] is not None:
                supersedes[position] = fields["supersedes"]
            if fields["derived_from"]:
                derived[position] = fields["derived_from"]
        created = governed_restore(
            rows=rows,
            supersedes=supersedes,
            derived_from=derived,
            authority=Authority(origin=WriteOrigin.IMPORT, actor=actor, person=True, operator=True),
        )
        if progress:
            progress(len(created))
        created_ids = [m.pk for m in created]
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
                "l1_ids": [m.pk for m in created if m.layer == Layer.L1],
            },
        )
        if embed:
            schedule_embedding(created_ids)
    return report
