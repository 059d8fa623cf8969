from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
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
    memory.full_clean(exclude=["embedding", "content_hash"])
    memory.save()
    if embed:
        schedule_embedding([memory.pk])
    return memory


@transaction.atomic
def memory_supersede(*, old: Memory, content: str, embed: bool = True, **fields: Any) -> Memory:
    """Close `old` and create version n+1 that points back to it (a governed UPDATE)."""
    old = Memory.objects.select_for_update().get(pk=old.pk)
    if old.status != Status.ACTIVE:
        raise StaleMemory(f"memory {old.pk} is {old.status} now; only an active memory can be superseded")
    now = timezone.now()
    inherited = {
        "layer": old.layer,
        "advertiser": old.advertiser,
        "business_line": old.business_line,
        "category": old.category,
        "data": old.data,
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
