"""Signals surface playbooks. When an L3 signal is written (a promotion such as 双11 预热, a
cold start, an anomaly), the L2 strategies and L4 templates of the same advertiser (or
global ones) that share its entities are recorded as one Suggestion. Matching reads the
entity links the write path has just stored; it is deterministic, so the same signal
always suggests the same playbooks. Suggestions expire with their signal."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from django.db import transaction
from django.db.models import Q, QuerySet

from governance.constants import SignalKind, SuggestionStatus
from governance.models import Suggestion
from governance.traces import trace_create
from memories.constants import EntityKind, Layer, Status
from memories.models import Memory, MemoryEntity
from textrules.reasons import Reason, ReasonCode

K = EntityKind
STAGE = "suggestions"
STAGE_EXPIRE = "lifecycle.suggestions"

# How much a shared entity says that a playbook applies: the event itself most.
KIND_WEIGHT = {K.EVENT: 3.0, K.CATEGORY: 2.0, K.TIME_SLOT: 1.5, K.CHANNEL: 1.0, K.PLAN: 1.0, K.ADVERTISER: 1.0, K.METRIC: 0.5}
PER_LAYER = 3
MAX_CANDIDATES = 500
KIND_BY_EVENT = {"大促": SignalKind.PROMOTION, "冷启动": SignalKind.COLD_START, "异常": SignalKind.ANOMALY}


def _signal_kind(events: list[str]) -> tuple[str, str]:
    for name in events:
        if name in KIND_BY_EVENT:
            return KIND_BY_EVENT[name], name
    return SignalKind.OTHER, (events[0] if events else "")


def _playbook_links(signal: Memory) -> QuerySet[MemoryEntity]:
    """Entity links of the playbooks a signal may surface: active L2/L4 memories of its
    advertiser (or global ones) still valid when it was seen. Filtered through the link's own
    join, not `memory__in` a query of memories: that form makes the planner read every memory
    in scope on each L3 write, under the write lock."""
    m = "memory__"
    scope = Q(**{f"{m}advertiser__isnull": True})
    if signal.advertiser is not None:
        scope |= Q(**{f"{m}advertiser": signal.advertiser})
    live = Q(**{f"{m}expires_at__isnull": True}) | Q(**{f"{m}expires_at__gt": signal.created_at})
    kind = Q(**{f"{m}status": Status.ACTIVE, f"{m}layer__in": [Layer.L2, Layer.L4]})
    return MemoryEntity.objects.filter(scope, live, kind).exclude(memory_id=signal.pk)


def _score(signal: Memory) -> tuple[dict[int, float], dict[int, list[str]], list[str]]:
    """Playbooks sharing the signal's event, scored by every entity they share with it."""
    links = list(MemoryEntity.objects.filter(memory=signal).values_list("entity_id", "entity__kind", "entity__name"))
    events = [name for _, kind, name in links if kind == K.EVENT]
    if not events:
        return {}, {}, []
    kind_of = {eid: kind for eid, kind, _ in links}
    name_of = {eid: name for eid, _, name in links}
    # A big store links thousands of playbooks to 大促: score the most important ones.
    event_ids = [eid for eid, kind in kind_of.items() if kind == K.EVENT]
    sharing_event = (
        _playbook_links(signal)
        .filter(entity_id__in=event_ids)
        .order_by("-memory__importance", "-memory_id")
        .values_list("memory_id", flat=True)[:MAX_CANDIDATES]
    )
    candidates = list(dict.fromkeys(sharing_event))
    score: dict[int, float] = defaultdict(float)
    shared: dict[int, list[str]] = defaultdict(list)
    rows = MemoryEntity.objects.filter(memory_id__in=candidates, entity_id__in=list(kind_of)).values_list("memory_id", "entity_id")
    for memory_id, entity_id in rows:
        kind = kind_of[entity_id]
        score[memory_id] += KIND_WEIGHT.get(kind, 0.5)
        shared[memory_id].append(f"{kind}:{name_of[entity_id]}")
    return dict(score), shared, events


@transaction.atomic
def suggestions_for_signal(*, signal: Memory) -> Suggestion | None:
    """Record the playbooks that apply to an L3 signal (called by the write path, after the
    signal's entity links are stored). A new version of a signal replaces the suggestion of
    the old one. Returns None when nothing applies."""
    if signal.layer != Layer.L3 or signal.status != Status.ACTIVE:
        return None
    if signal.supersedes_id:
        _close(
            Suggestion.objects.filter(signal_id=signal.supersedes_id, status=SuggestionStatus.OPEN),
            at=signal.created_at,
            why=Reason.of(ReasonCode.SIGNAL_REPLACED, id=signal.supersedes_id, new_id=signal.pk),
        )
    scores, shared, events = _score(signal)
    if not scores:
        # A signal that names no event (a balance alert) has no playbook to surface.
        return None
    importance = dict(Memory.objects.filter(pk__in=list(scores)).values_list("id", "importance"))
    layers = dict(Memory.objects.filter(pk__in=list(scores)).values_list("id", "layer"))

    def best(layer: str) -> list[int]:
        ids = [mid for mid in scores if layers[mid] == layer]
        return sorted(ids, key=lambda mid: (-scores[mid], -importance[mid], mid))[:PER_LAYER]

    strategies, templates = best(Layer.L2), best(Layer.L4)
    kind, topic = _signal_kind(events)
    suggestion = Suggestion.objects.create(
        signal=signal,
        advertiser=signal.advertiser,
        kind=kind,
        topic=topic[:128],
        expires_at=signal.expires_at,
        reasons={str(mid): {"score": round(scores[mid], 2), "shared": shared[mid]} for mid in [*strategies, *templates]},
    )
    suggestion.strategies.set(strategies)
    suggestion.templates.set(templates)
    trace_create(
        stage=STAGE,
        decision="suggested",
        memory=signal,
        reasons=[Reason.of(ReasonCode.SUGGESTED, signal_kind=kind, strategies=len(strategies), templates=len(templates))],
        scores={"suggestion_id": suggestion.pk, "strategies": strategies, "templates": templates},
    )
    return suggestion


def suggestions_for_live_signals(*, now: datetime) -> int:
    """Suggestions for live L3 signals that have none (after loading demo data or a
    restore). Returns how many were recorded."""
    live = (
        Memory.objects.filter(layer=Layer.L3, status=Status.ACTIVE, suggestions__isnull=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .order_by("id")
    )
    return sum(1 for signal in live if suggestions_for_signal(signal=signal) is not None)


def _close(suggestions: QuerySet[Suggestion], *, at: datetime, why: Reason) -> list[int]:
    ids = list(suggestions.values_list("id", flat=True))
    if ids:
        Suggestion.objects.filter(pk__in=ids, status=SuggestionStatus.OPEN).update(status=SuggestionStatus.EXPIRED, closed_at=at)
        trace_create(stage=STAGE_EXPIRE, decision="expired", reasons=[why], scores={"suggestion_ids": ids[:50], "count": len(ids)})
    return ids


@transaction.atomic
def suggestions_expire(*, now: datetime, actor: str = "scheduler") -> int:
    """Close every open suggestion whose signal has expired or is no longer active."""
    due = Suggestion.objects.filter(status=SuggestionStatus.OPEN).filter(
        Q(expires_at__lte=now) | ~Q(signal__status=Status.ACTIVE) | Q(signal__expires_at__lte=now)
    )
    return len(_close(due, at=now, why=Reason.of(ReasonCode.SIGNAL_ENDED, actor=actor)))
