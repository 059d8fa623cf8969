"""The one write path into memory.

Every governed change goes through these functions: the funnel's commit, approvals from
the admin, CLI and API, admin edits, trusted imports, promotion, expiry and eviction. They
check the hard rules (governance.write.hard_rules) whatever called them, keep a version chain
about the same thing (scope, business line, category and data carry forward), and give L3
its TTL from the observation time. memories.storage does the storage underneath and
decides nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from governance.audit import audit_record
from governance.constants import AuditEvent
from governance.knowledge.entities.link import link_entities, link_entities_bulk, schedule_llm_linking
from governance.knowledge.organise import category_refresh, memories_refresh_categories, organise_fields
from governance.knowledge.suggestions import suggestions_for_signal
from governance.write.hard_rules import Authority, HardRule, HardRuleViolation, WriteOrigin, enforce, l3_expires_at
from memories import storage
from memories.constants import Attribution, Grounding, Layer, Source, Status, Tier
from memories.embeddings import get_embedder
from memories.embeddings.store import memory_store_vectors
from memories.locks import memory_write_lock
from memories.models import Memory
from textrules.claims import extract_claim

if TYPE_CHECKING:
    import numpy as np

SCOPE_DATA_KEYS = frozenset({"plan_id", "campaign_id", "category", "business_line", "channel"})
TIER_BY_LAYER = {Layer.L1: Tier.CORE, Layer.L2: Tier.WORKING, Layer.L3: Tier.PERIPHERAL, Layer.L4: Tier.CORE}


@dataclass
class Proposal:
    """A memory to write. Empty business_line, category and data mean "not set": a new
    version then keeps the old version's values."""

    content: str
    layer: str
    advertiser: str | None = None
    business_line: str = ""
    category: str = ""
    trigger_type: str = ""
    source: str = Source.AGENT
    source_attribution: str = Attribution.UNKNOWN
    grounding: str = Grounding.UNKNOWN
    importance: float = 5.0
    confidence: float = 0.5
    data: dict[str, Any] = field(default_factory=dict)
    observed_at: datetime | None = None
    expires_at: datetime | None = None
    tier: str = ""
    # episodic/semantic when the writer knows it (reflection's consolidation); else decided here.
    kind: str = ""
    # Its claim when a judge read one (validated against textrules.claims); else read here from the content.
    claim: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Proposal:
        """A stored candidate (Candidate.as_payload(), a review item, a promotion)."""

        def when(value: Any) -> datetime | None:
            if isinstance(value, datetime):
                return value
            parsed = parse_datetime(value) if isinstance(value, str) else None
            if parsed is not None and timezone.is_naive(parsed):
                parsed = timezone.make_aware(parsed)
            return parsed

        return cls(
            content=str(payload.get("content") or ""),
            layer=str(payload.get("layer") or ""),
            advertiser=payload.get("advertiser") or None,
            business_line=payload.get("business_line") or "",
            category=(payload.get("category") or "")[:64],
            trigger_type=payload.get("trigger_type") or "",
            source=payload.get("source") or Source.AGENT,
            source_attribution=payload.get("source_attribution") or Attribution.UNKNOWN,
            grounding=payload.get("grounding") or Grounding.UNKNOWN,
            importance=_clamp(payload.get("importance", 5.0), 10.0),
            confidence=_clamp(payload.get("confidence", 0.5), 1.0),
            data=dict(payload.get("data") or {}),
            observed_at=when(payload.get("observed_at")),
            expires_at=when(payload.get("expires_at")),
            kind=payload.get("kind") or "",
            claim=dict(payload.get("claim") or {}),
        )


def _clamp(value: Any, top: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = top / 2
    return max(0.0, min(top, number))


def _check(proposal: Proposal, *, authority: Authority, supersedes: Memory | None, derived_from: Sequence[Memory]) -> None:
    enforce(
        layer=proposal.layer,
        source=proposal.source,
        attribution=proposal.source_attribution,
        authority=authority,
        derived_from=derived_from,
        observed_at=proposal.observed_at,
    )
    if supersedes is None:
        return
    if supersedes.advertiser != proposal.advertiser and not authority.operator:
        raise HardRuleViolation(
            HardRule.SCOPE,
            f"memory #{supersedes.pk} belongs to {supersedes.advertiser or 'global'}; "
            f"a {proposal.advertiser or 'global'} proposal changes it only by an operator's decision",
        )
    if supersedes.layer == Layer.L1 and not authority.operator:
        raise HardRuleViolation(
            HardRule.L1_AUTHORITATIVE, f"L1 rule #{supersedes.pk} is never overwritten automatically; an operator decides"
        )
    if supersedes.layer == Layer.L4 and authority.origin != WriteOrigin.PROMOTION:
        raise HardRuleViolation(HardRule.L4_PROMOTION_ONLY, f"L4 template #{supersedes.pk} changes only by a new promotion")


def _fields(proposal: Proposal, old: Memory | None) -> dict[str, Any]:
    layer = proposal.layer
    observed = proposal.observed_at if layer == Layer.L3 else None
    expires = None
    if layer == Layer.L3:
        expires = proposal.expires_at or l3_expires_at(observed)
    category = proposal.category or (old.category if old else "") or proposal.trigger_type
    # A new version says what its own proposal says: only the keys that name the scope
    # (which plan, which category) carry over, never the old version's figures or days.
    carried = {k: v for k, v in (old.data or {}).items() if k in SCOPE_DATA_KEYS} if old else {}
    data = {**carried, **proposal.data}
    advertiser = old.advertiser if old is not None else proposal.advertiser
    business_line = proposal.business_line or (old.business_line if old else "")
    organised = organise_fields(
        content=proposal.content,
        layer=layer,
        advertiser=advertiser,
        trigger_type=proposal.trigger_type,
        data=data,
        category=category,
        business_line=business_line,
        kind=proposal.kind,
    )
    return dict(
        **organised.model_fields(),
        layer=layer,
        # A version chain is about one thing in one scope: the scope never moves.
        advertiser=advertiser,
        business_line=business_line,
        category=category[:64],
        data=data,
        claim=proposal.claim or extract_claim(proposal.content, advertiser=advertiser, data=data).as_dict(),
        source=proposal.source,
        source_attribution=proposal.source_attribution,
        grounding=proposal.grounding,
        importance=proposal.importance,
        confidence=proposal.confidence,
        tier=proposal.tier or TIER_BY_LAYER.get(layer, Tier.WORKING),
        observed_at=observed,
        expires_at=expires,
    )


@transaction.atomic
def governed_write(
    *,
    proposal: Proposal,
    authority: Authority,
    supersedes: Memory | None = None,
    derived_from: Sequence[Memory] = (),
    vector: np.ndarray | None = None,
) -> Memory:
    """Write a new memory, or a new version of `supersedes`. `vector` is the proposal's
    embedding when the caller already computed it for the same text and model. Returns
    the row written. It holds the scope it writes (memories.locks); a caller that decided
    something first holds it already, from before its decision."""
    import numpy as np

    memory_write_lock(advertisers=[supersedes.advertiser if supersedes is not None else proposal.advertiser])
    old = None
    if supersedes is not None:
        old = Memory.objects.get(pk=supersedes.pk)
        if proposal.layer != old.layer:
            proposal = replace(proposal, layer=old.layer)
    _check(proposal, authority=authority, supersedes=old, derived_from=derived_from)
    fields = _fields(proposal, old)
    embed = vector is None
    if old is not None:
        memory = storage.memory_supersede(old=old, content=proposal.content, embed=embed, **fields)
    else:
        memory = storage.memory_create(content=proposal.content, embed=embed, **fields)
    if vector is not None:
        memory_store_vectors([memory], [np.asarray(vector, dtype=np.float32)], get_embedder().model_name)
    if derived_from:
        memory.derived_from.add(*derived_from)
    category_refresh({n for n in (memory.category_node_id, old.category_node_id if old else None) if n})
    _link_and_suggest(memory, trigger_type=proposal.trigger_type)
    if memory.layer == Layer.L1:
        _audit_l1(
            memory,
            authority=authority,
            event=AuditEvent.MEMORY_L1_WRITE,
            extra={"supersedes": getattr(old, "pk", None), "version": memory.version},
        )
    return memory


def governed_write_lock(*, advertiser: str | None, supersedes_id: int | None = None) -> None:
    """Hold what a governed write for `advertiser` decides on, before the decision: its own
    scope (and the global scope shared, see memories.locks), plus the scope of the memory
    it would replace when a person chose one in another scope."""
    scopes: list[str | None] = [advertiser]
    if isinstance(supersedes_id, int) and supersedes_id > 0:
        scopes += list(Memory.objects.filter(pk=supersedes_id).values_list("advertiser", flat=True))
    memory_write_lock(advertisers=scopes)


@transaction.atomic
def governed_restore(
    *, rows: Sequence[dict[str, Any]], supersedes: dict[int, int], derived_from: dict[int, list[int]], authority: Authority
) -> list[Memory]:
    """A trusted import restores rows as they were recorded: ids, versions, statuses and
    validity kept, version links and derivations set (keyed by position in `rows`), offline
    entity links made. Returns the rows written. The caller (governance.write.imports) has
    judged every line against the hard rules and the stored lineage, under the lock, and
    writes the one audit row of the import."""
    if authority.origin != WriteOrigin.IMPORT or not authority.operator:
        raise HardRuleViolation(HardRule.SCOPE, "only an operator's trusted import restores rows as recorded")
    created = storage.memories_restore(rows=rows, supersedes=supersedes, derived_from=derived_from)
    # A restore brings old observations back, not new signals: no suggestions here
    # (governance.knowledge.suggestions.suggestions_for_live_signals makes them on request).
    for start in range(0, len(created), 1000):
        link_entities_bulk(created[start : start + 1000])
    return created


@transaction.atomic
def _claims_batch(*, after: int, batch_size: int) -> tuple[int, int]:
    rows = list(Memory.objects.filter(claim={}, pk__gt=after).only("id", "content", "advertiser", "data").order_by("id")[:batch_size])
    claims = {m.pk: extract_claim(m.content, advertiser=m.advertiser, data=m.data).as_dict() for m in rows}
    return storage.memories_set_claims(claims=claims), rows[-1].pk if rows else -1


def governed_claims_backfill(*, batch_size: int = 500) -> int:
    """Read the claim of every version written before claims existed, a batch per
    transaction (a derived field: no audit row, no new version). Returns the rows that got one."""
    total, after = 0, 0
    while after >= 0:
        changed, after = _claims_batch(after=after, batch_size=batch_size)
        total += changed
    return total


def _audit_l1(memory: Memory, *, authority: Authority, event: AuditEvent, extra: dict[str, Any] | None = None) -> None:
    """L1 core rules bind every agent: each change to one is in the audit log, whichever
    path made it (funnel, approval, promotion, admin, lifecycle), in the same transaction."""
    audit_record(
        event_type=event,
        actor=authority.actor,
        target=memory,
        extra={
            "origin": str(authority.origin),
            "person": authority.person,
            "operator": authority.operator,
            "status": memory.status,
            "content": memory.content[:200],
            **(extra or {}),
        },
    )


def _link_and_suggest(memory: Memory, *, trigger_type: str) -> None:
    """Entity links in the same transaction as the write; an L3 signal then looks for the
    playbooks that apply to it through those links."""
    link_entities(memory, trigger_type=trigger_type)
    schedule_llm_linking(memory.pk, trigger_type=trigger_type)
    if memory.layer == Layer.L3:
        suggestions_for_signal(signal=memory)


@transaction.atomic
def governed_reinforce(*, memory: Memory, authority: Authority) -> Memory:
    """A duplicate seen again: count it on the memory it repeats. Returns the row as stored."""
    return storage.memory_reinforce(memory=memory)


@transaction.atomic
def governed_organise(*, memory: Memory, kind: str, category_node: Any, abstract_line: str, abstract_paragraph: str) -> None:
    """The organise backfill stores what the write path would have decided for a memory
    written before kinds, categories and abstracts existed (derived fields only; the
    category node is always in the memory's own advertiser tree)."""
    if category_node is not None and category_node.advertiser != memory.advertiser:
        raise HardRuleViolation(HardRule.SCOPE, f"category #{category_node.pk} is not in memory #{memory.pk}'s tree")
    storage.memory_set_organisation(
        memory=memory, kind=kind, category_node=category_node, abstract_line=abstract_line, abstract_paragraph=abstract_paragraph
    )


def _check_transition(memory: Memory, *, authority: Authority) -> None:
    if memory.layer == Layer.L1 and not authority.operator:
        raise HardRuleViolation(HardRule.L1_AUTHORITATIVE, f"L1 rule #{memory.pk} changes only by an operator")


@transaction.atomic
def governed_set_status(*, memory: Memory, status: str, authority: Authority) -> Memory:
    """One memory changes status (archive, restore, a reviewer's verdict)."""
    _check_transition(memory, authority=authority)
    before = memory.status
    memory = storage.memory_set_status(memory=memory, status=status)
    memories_refresh_categories([memory.pk])
    if memory.layer == Layer.L1 and before != status:
        _audit_l1(memory, authority=authority, event=AuditEvent.MEMORY_L1_STATUS, extra={"from": before, "to": status})
    return memory


@transaction.atomic
def governed_lifecycle_transition(
    *,
    memory_ids: Iterable[int],
    from_status: str,
    to_status: str,
    at: datetime,
    authority: Authority,
    expired_by: datetime | None = None,
    extra: dict[str, Any] | None = None,
) -> list[int]:
    """A scheduled job moves many memories at once (expiry, eviction). Only rows still in
    `from_status` move, and the ids returned are exactly the rows this call changed: an
    overlapping run, a retried task or a review that moved a row first keeps it, so the
    caller traces and audits each change once. A job never archives an L1 core rule
    (expiry of an L1 rule is the end date an operator gave it, so it may expire)."""
    moved = storage.memory_transition(
        memory_ids=memory_ids,
        from_status=from_status,
        to_status=to_status,
        at=at,
        keep_layers=(Layer.L1,) if to_status == Status.ARCHIVED else (),
        expired_by=expired_by,
        extra=extra,
    )
    if moved:
        memories_refresh_categories(moved)
        for memory in Memory.objects.filter(pk__in=moved, layer=Layer.L1):
            _audit_l1(memory, authority=authority, event=AuditEvent.MEMORY_L1_STATUS, extra={"from": from_status, "to": to_status})
    return moved


@transaction.atomic
def governed_retier(*, memory_id: int, from_tier: str, to_tier: str, at: datetime, authority: Authority) -> bool:
    """The retention job moves one active memory between tiers, if nobody moved it since it
    was scored. True when this call changed the row. L1 has no tiers to decay through."""
    if Memory.objects.filter(pk=memory_id, layer=Layer.L1).exists():
        raise HardRuleViolation(HardRule.L1_AUTHORITATIVE, f"L1 rule #{memory_id} keeps its tier until a person changes it")
    return storage.memory_set_tier(memory_id=memory_id, from_tier=from_tier, to_tier=to_tier, at=at)


@transaction.atomic
def governed_edit(*, memory: Memory, changes: dict[str, Any], authority: Authority) -> Memory:
    """A person's in-place change of fields that are not the content (importance, tier,
    category, TTL…). Content changes are new versions through governed_write. Returns the
    row as stored."""
    _check_transition(memory, authority=authority)
    if memory.layer == Layer.L3 and "expires_at" in changes and changes["expires_at"] is None:
        raise HardRuleViolation(HardRule.L3_OBSERVATION, f"L3 memory #{memory.pk} needs an expiry time")
    for name, value in changes.items():
        setattr(memory, name, value)
    fields = list(changes)
    if "category" in changes or "business_line" in changes:
        # A person moved it: the category tree follows the new label.
        before = memory.category_node_id
        # The person's label outranks the category the original event's data named.
        typed = {k: v for k, v in (memory.data or {}).items() if k not in {"category", "business_line", "品类", "类目", "业务线"}}
        memory.category_node = organise_fields(
            content=memory.content,
            layer=memory.layer,
            advertiser=memory.advertiser,
            data=typed,
            category=memory.category,
            business_line=memory.business_line,
            kind=memory.kind,
        ).node
        fields.append("category_node")
    storage.memory_save_fields(memory=memory, fields=fields)
    if "category_node" in fields:
        category_refresh({n for n in (before, memory.category_node_id) if n})
    return memory
