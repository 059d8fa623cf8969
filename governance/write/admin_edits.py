"""Writes that people make from the admin. Each one is atomic with its audit row (and, for
edits, a MemoryEvent + Trace), so the review desk never changes memory off the record."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from governance.audit import audit_record
from governance.constants import Action, AuditEvent, EventKind, EventStatus
from governance.models import LayerPolicy, MemoryEvent
from governance.reasons import reason_columns
from governance.traces import trace_create
from memories.constants import L1_PERMISSION, Attribution, Layer, Source, Status
from memories.embeddings.store import embed_memories
from memories.exceptions import InvalidInput
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode
from textrules.safety import redact, refuse_credentials

# What a person may change by hand. Layer, scope and status have their own governed paths
# (the funnel, promotion, archive/restore), so they are never free-form admin fields.
ADMIN_EDITABLE_FIELDS = ("content", "importance", "confidence", "category", "business_line", "tier", "expires_at")

# Which status a person may move a memory to, from which status.
_TRANSITIONS = {
    Status.ARCHIVED: {Status.ACTIVE, Status.PENDING_REVIEW, Status.EXPIRED},
    Status.ACTIVE: {Status.ARCHIVED},
}


def _actor(user: Any) -> str:
    return user.get_username() if user is not None and getattr(user, "is_authenticated", False) else "system"


def _jsonable(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def memory_can_change(*, user: Any, memory: Memory) -> bool:
    """L1 core rules are changed only by operators (the edit_l1_memory permission)."""
    if not user.has_perm("memories.change_memory"):
        return False
    return memory.layer != Layer.L1 or user.has_perm(L1_PERMISSION)


def _require_change(*, user: Any, memory: Memory) -> None:
    if not memory_can_change(user=user, memory=memory):
        raise PermissionDenied(f"{_actor(user)} may not change {memory.layer} memory #{memory.pk}")


@transaction.atomic
def memory_admin_edit(*, memory: Memory, user: Any, changes: dict[str, Any], note: str = "") -> Memory:
    """Apply a person's edit. A content change is a new version (the old one is closed and
    stays in the history); other fields change in place. Either way an admin_edit event
    with one trace row, and an audit entry, are written in the same transaction."""
    from governance.write.memory import governed_write_lock

    # The scope before the row: a funnel write holds its scope and then locks the row it
    # supersedes, so taking them the other way round here could wait in a cycle.
    governed_write_lock(advertiser=memory.advertiser)
    memory = Memory.objects.select_for_update().get(pk=memory.pk)
    _require_change(user=user, memory=memory)
    unknown = set(changes) - set(ADMIN_EDITABLE_FIELDS)
    if unknown:
        raise InvalidInput(f"not editable here: {', '.join(sorted(unknown))}")
    # A credential is refused, personal data masked, exactly as on the funnel's way in.
    changes = refuse_credentials(changes, where=f"admin edit of memory #{memory.pk}")
    note = redact(note)
    diff = {name: [_jsonable(getattr(memory, name)), _jsonable(value)] for name, value in changes.items() if getattr(memory, name) != value}
    if not diff:
        return memory
    if memory.status != Status.ACTIVE and "content" in diff:
        raise InvalidInput(f"memory #{memory.pk} is {memory.status}; only an active memory gets a new version")

    actor = _actor(user)
    now = timezone.now()
    previous_id = memory.pk
    from governance.write.hard_rules import Authority, WriteOrigin
    from governance.write.memory import Proposal, governed_edit, governed_write

    authority = Authority(origin=WriteOrigin.ADMIN_EDIT, actor=actor, person=True, operator=user.has_perm(L1_PERMISSION))
    if "content" in diff:
        carried = {
            "importance": memory.importance,
            "confidence": memory.confidence,
            "grounding": memory.grounding,
            "observed_at": memory.observed_at,
            "expires_at": memory.expires_at,
            "category": memory.category,
            "business_line": memory.business_line,
            "tier": memory.tier,
            "data": dict(memory.data or {}),
        }
        carried.update({k: v for k, v in changes.items() if k != "content"})
        proposal = Proposal(
            content=changes["content"],
            layer=memory.layer,
            advertiser=memory.advertiser,
            source=Source.HUMAN,
            source_attribution=Attribution.HUMAN_CONFIG,
            **carried,
        )
        result = governed_write(proposal=proposal, authority=authority, supersedes=memory)
        action = Action.UPDATE
    else:
        result = governed_edit(memory=memory, changes=changes, authority=authority)
        action = Action.UPDATE

    reasons = [Reason.of(ReasonCode.ADMIN_EDITED, actor=actor)] + ([Reason.of(ReasonCode.NOTE, note=note)] if note else [])
    event = MemoryEvent.objects.create(
        kind=EventKind.ADMIN_EDIT,
        source=Source.HUMAN,
        actor=actor,
        advertiser=result.advertiser,
        business_line=result.business_line,
        requested_layer=result.layer,
        raw_text=result.content,
        summary=f"admin edit of memory #{previous_id}",
        data={"changes": diff, "previous_memory_id": previous_id},
        status=EventStatus.DECIDED,
        action=action,
        decided_layer=result.layer,
        **reason_columns(reasons),
        memory=result,
        provider="human",
        created_at=now,
        decided_at=now,
    )
    trace_create(
        event=event,
        memory=result,
        seq=1,
        stage="admin_edit",
        decision=action,
        reasons=reasons,
        scores={"fields_changed": len(diff), "new_version": result.pk != previous_id},
        provider="human",
        created_at=now,
    )
    audit_record(
        event_type=AuditEvent.MEMORY_ADMIN_EDIT,
        actor=actor,
        target=result,
        extra={"changes": diff, "previous_memory_id": previous_id, "event_id": event.pk, "version": result.version},
    )
    return result


@transaction.atomic
def memory_admin_set_status(*, memory: Memory, user: Any, status: str, note: str = "") -> Memory:
    """Archive or restore one memory, with a trace row and an audit entry."""
    memory = Memory.objects.select_for_update().get(pk=memory.pk)
    _require_change(user=user, memory=memory)
    allowed_from = _TRANSITIONS.get(status)
    if allowed_from is None:
        raise InvalidInput(f"a person cannot set status {status!r} from the admin")
    if memory.status not in allowed_from:
        raise InvalidInput(f"memory #{memory.pk} is {memory.status}; cannot move it to {status}")
    if status == Status.ACTIVE and memory.expires_at is not None and memory.expires_at <= timezone.now():
        raise InvalidInput(f"memory #{memory.pk} expired at {memory.expires_at:%Y-%m-%d %H:%M}; restoring it would serve a stale fact")
    from governance.write.hard_rules import Authority, WriteOrigin
    from governance.write.memory import governed_set_status

    before = memory.status
    actor = _actor(user)
    governed_set_status(
        memory=memory,
        status=status,
        authority=Authority(origin=WriteOrigin.ADMIN_EDIT, actor=actor, person=True, operator=user.has_perm(L1_PERMISSION)),
    )
    archived = status == Status.ARCHIVED
    stage = "admin_archive" if archived else "admin_restore"
    reasons = [Reason.of(ReasonCode.ADMIN_STATUS, from_status=before, to_status=status, actor=actor)]
    reasons += [Reason.of(ReasonCode.NOTE, note=note)] if note else []
    trace_create(memory=memory, stage=stage, decision=status, reasons=reasons, provider="human")
    audit_record(
        event_type=AuditEvent.MEMORY_ARCHIVE if archived else AuditEvent.MEMORY_RESTORE,
        actor=actor,
        target=memory,
        extra={"from": before, "to": status, "note": note},
    )
    return memory


def memory_admin_reembed(*, memories: Iterable[Memory], user: Any) -> int:
    """Recompute the embeddings of the chosen memories now (an embedder change, a repair)."""
    ids = [m.pk for m in memories]
    if not user.has_perm("memories.change_memory"):
        raise PermissionDenied(f"{_actor(user)} may not re-embed memories")
    done = embed_memories(ids)
    audit_record(event_type=AuditEvent.MEMORY_REEMBED, actor=_actor(user), target=None, extra={"memory_ids": ids, "embedded": done})
    return done


@transaction.atomic
def layer_policy_update(*, policy: LayerPolicy, user: Any, changes: dict[str, Any]) -> LayerPolicy:
    """An operator's edit of one layer's tunable parameters, audited with before/after."""
    if not user.has_perm("governance.change_layerpolicy"):
        raise PermissionDenied(f"{_actor(user)} may not change layer policies")
    unknown = set(changes) - set(LayerPolicy.TUNABLE_FIELDS)
    if unknown:
        raise InvalidInput(f"not tunable: {', '.join(sorted(unknown))} (hard rules live in code)")
    policy = LayerPolicy.objects.select_for_update().get(pk=policy.pk)
    diff = {name: [getattr(policy, name), value] for name, value in changes.items() if getattr(policy, name) != value}
    if not diff:
        return policy
    for name, value in changes.items():
        setattr(policy, name, value)
    policy.updated_by = _actor(user)
    policy.full_clean()
    policy.save()
    audit_record(
        event_type=AuditEvent.LAYER_POLICY_UPDATE, actor=_actor(user), target=policy, extra={"layer": policy.layer, "changes": diff}
    )
    return policy
