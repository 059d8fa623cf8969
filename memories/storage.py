"""Row writes of the Memory table. It stores what governance decided and decides nothing;
only governance.write calls it (import-linter and tests/governance/test_storage_only_under_write_path.py
keep it so)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from memories.constants import Attribution, Grounding, Source, Status, Tier
from memories.embeddings.store import schedule_embedding
from memories.exceptions import StaleMemory
from memories.hashing import content_hash
from memories.models import Memory

logger = logging.getLogger(__name__)


def memory_create(
    *,
    layer: str,
    content: str,
    data: dict[str, Any] | None = None,
    claim: dict[str, Any] | None = None,
    advertiser: str | None = None,
    business_line: str = "",
    category: str = "",
    source: str = Source.AGENT,
    source_attribution: str = Attribution.UNKNOWN,
    grounding: str = Grounding.UNKNOWN,
    importance: float = 5.0,
    confidence: float = 0.5,
    status: str = Status.ACTIVE,
    tier: str = Tier.WORKING,
    observed_at: datetime | None = None,
    expires_at: datetime | None = None,
    created_at: datetime | None = None,
    embed: bool = True,
    kind: str = "",
    category_node: Any = None,
    abstract_line: str = "",
    abstract_paragraph: str = "",
) -> Memory:
    memory = Memory(
        kind=kind,
        category_node=category_node,
        abstract_line=abstract_line,
        abstract_paragraph=abstract_paragraph,
        layer=layer,
        content=content.strip(),
        data=data or {},
        claim=claim or {},
        advertiser=advertiser or None,
        business_line=business_line or "",
        category=category or "",
        source=source,
        source_attribution=source_attribution,
        grounding=grounding,
        importance=float(importance),
        confidence=float(confidence),
        status=status,
        tier=tier,
        observed_at=observed_at,
        expires_at=expires_at,
        content_hash=content_hash(content),
    )
    if created_at is not None:
        memory.created_at = created_at
        memory.valid_from = created_at
    # The table's CHECK constraints (layer, status, ranges, non-empty content) are checked
    # by the insert itself; validating them here too cost six queries, each in a savepoint.
    memory.full_clean(exclude=["embedding", "content_hash"], validate_constraints=False)
    memory.save()
    if embed:
        schedule_embedding([memory.pk])
    return memory


@transaction.atomic
def memory_supersede(*, old: Memory, content: str, embed: bool = True, **fields: Any) -> Memory:
    """Close `old` and create version n+1 that points back to it (a governed UPDATE). The
    new version's data and claim are its own (the caller passes them), never the old one's."""
    old = Memory.objects.select_for_update().get(pk=old.pk)
    if old.status != Status.ACTIVE:
        raise StaleMemory(f"memory {old.pk} is {old.status} now; only an active memory can be superseded")
    now = timezone.now()
    inherited = {
        "layer": old.layer,
        "advertiser": old.advertiser,
        "business_line": old.business_line,
        "category": old.category,
        "tier": old.tier,
        "kind": old.kind,
        "category_node": old.category_node,
    }
    inherited.update(fields)
    new = memory_create(content=content, embed=embed, **inherited)
    Memory.objects.filter(pk=old.pk).update(status=Status.SUPERSEDED, valid_to=now)
    Memory.objects.filter(pk=new.pk).update(version=old.version + 1, supersedes=old, valid_from=now)
    new.refresh_from_db()
    return new


def memory_transition(
    *,
    memory_ids: Iterable[int],
    from_status: str,
    to_status: str,
    at: datetime,
    keep_layers: Sequence[str] = (),
    expired_by: datetime | None = None,
    extra: dict[str, Any] | None = None,
) -> list[int]:
    """Move the rows that are still `from_status` to `to_status` and return exactly those
    ids. One UPDATE … WHERE status = … RETURNING id (PostgreSQL, SQLite 3.35+), so when two
    runs race for a row only the one whose statement changed it hears about it; a count
    taken before the update would let both report it. Rows of `keep_layers` never move;
    with `expired_by`, only rows whose expires_at is at or before it (a TTL extended since
    the job selected the row keeps it active)."""
    ids = sorted({int(i) for i in memory_ids})
    if not ids:
        return []
    quote = connection.ops.quote_name
    values = {"status": to_status, "updated_at": at, **(extra or {})}
    assignments, params = [], []
    for name, value in values.items():
        field = Memory._meta.get_field(name)
        assignments.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_save(value, connection))
    where = f"{quote('id')} IN ({', '.join(['%s'] * len(ids))}) AND {quote('status')} = %s"
    params += [*ids, from_status]
    if keep_layers:
        where += f" AND {quote('layer')} NOT IN ({', '.join(['%s'] * len(keep_layers))})"
        params += [str(layer) for layer in keep_layers]
    if expired_by is not None:
        where += f" AND {quote('expires_at')} <= %s"
        params.append(Memory._meta.get_field("expires_at").get_db_prep_value(expired_by, connection))
    sql = f"UPDATE {quote(Memory._meta.db_table)} SET {', '.join(assignments)} WHERE {where} RETURNING {quote('id')}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return sorted(int(row[0]) for row in cursor.fetchall())


def memory_set_tier(*, memory_id: int, from_tier: str, to_tier: str, at: datetime) -> bool:
    """Retier one active row if it still has `from_tier`; True when this call moved it.
    An unchanged column is never written, so the search cache is not invalidated for nothing."""
    return bool(Memory.objects.filter(pk=memory_id, status=Status.ACTIVE, tier=from_tier).update(tier=to_tier, updated_at=at))


def memory_save_fields(*, memory: Memory, fields: Sequence[str]) -> Memory:
    """Store the named fields of an in-place edit (never the content: that is a new version)."""
    memory.full_clean(exclude=["embedding", "content_hash", "supersedes"])
    memory.save(update_fields=[*fields, "updated_at"])
    return memory


def memories_restore(*, rows: Sequence[dict[str, Any]], supersedes: dict[int, int], derived_from: dict[int, list[int]]) -> list[Memory]:
    """Insert rows exactly as a trusted import recorded them: their ids (when given),
    versions, statuses and validity, then the version links and derivations between them
    and stored rows, keyed by position in `rows`. Explicit ids leave PostgreSQL's id
    sequence behind, so it is moved past them; SQLite needs nothing."""
    created = []
    for fields in rows:
        memory = Memory(**fields)
        memory.save(force_insert=True)
        created.append(memory)
    for position, target in supersedes.items():
        Memory.objects.filter(pk=created[position].pk).update(supersedes_id=target)
        created[position].supersedes_id = target
    for position, sources in derived_from.items():
        created[position].derived_from.set(sources)
    if any(fields.get("id") is not None for fields in rows):
        with connection.cursor() as cursor:
            for statement in connection.ops.sequence_reset_sql(no_style(), [Memory]):
                cursor.execute(statement)
    return created


def memories_set_claims(*, claims: dict[int, dict[str, Any]]) -> int:
    """Store claims read for rows written before claims existed; a row that has one keeps it."""
    changed = 0
    for memory_id, claim in claims.items():
        changed += Memory.objects.filter(pk=memory_id, claim={}).update(claim=claim)
    return changed


def memory_set_status(*, memory: Memory, status: str) -> Memory:
    Memory.objects.filter(pk=memory.pk).update(status=status, updated_at=timezone.now())
    memory.refresh_from_db()
    return memory


def memory_set_organisation(*, memory: Memory, kind: str, category_node: Any, abstract_line: str, abstract_paragraph: str) -> None:
    """Store what governance decided about a memory's kind, category and abstracts
    (the backfill of memories written before these existed)."""
    Memory.objects.filter(pk=memory.pk).update(
        kind=kind, category_node=category_node, abstract_line=abstract_line, abstract_paragraph=abstract_paragraph
    )


def memory_reinforce(*, memory: Memory) -> Memory:
    Memory.objects.filter(pk=memory.pk).update(reinforcement_count=F("reinforcement_count") + 1, updated_at=timezone.now())
    memory.refresh_from_db()
    return memory


# --- erasure (governance.write.erase decides what goes; these remove it) -----------------
def storage_secure_delete() -> None:
    """On SQLite, have this connection overwrite deleted content with zeros from now on,
    so the pages an erase frees keep none of its words. PostgreSQL has no such switch."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA secure_delete = ON")


def memories_delete(*, memory_ids: Iterable[int]) -> int:
    """Delete these memory rows with their version links and derivations; rows that point
    at them (events, traces, review items) keep a NULL, links and relations go with them.
    The FTS delete trigger drops their index entries; the search-state trigger moves the
    generation and logs the ids, so every process drops them from its vector index and
    the shared vector file's slots are zeroed (memories/search/vectors.py)."""
    ids = sorted({int(i) for i in memory_ids})
    if not ids:
        return 0
    # A version link is PROTECT: unhook the chain before deleting it.
    Memory.objects.filter(pk__in=ids).update(supersedes=None)
    Memory.derived_from.through.objects.filter(from_memory_id__in=ids).delete()
    Memory.derived_from.through.objects.filter(to_memory_id__in=ids).delete()
    deleted, _ = Memory.objects.filter(pk__in=ids).delete()
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            # FTS5 marks a deleted row in a new segment; merging all segments drops the old
            # entries for real (and, with secure_delete, zeroes the pages they were on).
            cursor.execute("INSERT INTO memories_memory_fts(memories_memory_fts) VALUES ('optimize')")
    return deleted


def storage_compact() -> dict[str, Any]:
    """After an erase has committed, on SQLite: rebuild the file (VACUUM, so no free page
    or slack space keeps an old copy of a row) and fold the WAL back into it, truncating
    the WAL file to nothing. Another connection in the middle of a transaction makes
    either step wait out the busy timeout and report it did not finish; a VACUUM run
    when the service is quiet completes it. PostgreSQL: nothing here (see
    docs/erasure.md: VACUUM there does not overwrite the old row versions)."""
    if connection.vendor != "sqlite":
        return {"vendor": connection.vendor, "vacuumed": False, "wal_truncated": False}
    if connection.in_atomic_block:
        return {"vendor": "sqlite", "vacuumed": False, "wal_truncated": False, "note": "inside a transaction"}
    # The shared vector file beside the database holds a float32 copy of every vector: a
    # refresh of this process's index zeroes the slots of the rows just deleted.
    from memories.search.vectors import vector_index

    vector_index.refresh()
    out: dict[str, Any] = {"vendor": "sqlite"}
    with connection.cursor() as cursor:
        try:
            cursor.execute("VACUUM")
            out["vacuumed"] = True
        except Exception as exc:  # noqa: BLE001 - a busy database is reported, not raised: the words are already gone from every row
            logger.warning("VACUUM after an erase did not run: %s", exc)
            out["vacuumed"] = False
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        busy, _, _ = cursor.fetchone()
        # Not busy: every frame was copied back and the WAL file cut to zero bytes.
        out["wal_truncated"] = busy == 0
    return out
