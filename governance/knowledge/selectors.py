"""Reads of open suggestions."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils import timezone

from governance.constants import SuggestionStatus
from governance.models import Suggestion
from memories.constants import Status
from memories.models import Memory

MAX_QUEUE = 500


def suggestions_open(*, advertisers: tuple[str, ...] | None = None, limit: int = 50) -> list[Suggestion]:
    """Open suggestions whose signal is still live, newest first. `advertisers=None` is the
    operator view; otherwise those advertisers' suggestions plus global ones."""
    now = timezone.now()
    qs = (
        Suggestion.objects.filter(status=SuggestionStatus.OPEN, signal__status=Status.ACTIVE)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .select_related("signal")
        .prefetch_related("strategies", "templates")
    )
    if advertisers is not None:
        qs = qs.filter(Q(advertiser__in=advertisers) | Q(advertiser__isnull=True))
    return list(qs.order_by("-created_at", "-id")[: max(1, min(int(limit), MAX_QUEUE))])


def suggestion_dict(suggestion: Suggestion) -> dict[str, Any]:
    """A suggestion with its signal and its live playbooks, the best-matching first. A
    playbook archived, expired or replaced by a newer version since the suggestion was
    made is left out: an agent would act on it. (The admin's suggestion page still lists
    every playbook recorded, as an audit record.)"""
    reasons = suggestion.reasons or {}
    now = timezone.now()

    def playbook(memory: Memory) -> dict[str, Any]:
        why = reasons.get(str(memory.pk), {})
        return {
            "id": memory.pk,
            "layer": memory.layer,
            "content": memory.content,
            "advertiser": memory.advertiser,
            "category": memory.category,
            "score": why.get("score", 0.0),
            "shared_entities": why.get("shared", []),
        }

    def ranked(memories: Any) -> list[dict[str, Any]]:
        live = (m for m in memories.all() if m.status == Status.ACTIVE and (m.expires_at is None or m.expires_at > now))
        return sorted((playbook(m) for m in live), key=lambda p: (-p["score"], p["id"]))

    signal = suggestion.signal
    return {
        "id": suggestion.pk,
        "kind": suggestion.kind,
        "topic": suggestion.topic,
        "advertiser": suggestion.advertiser,
        "status": suggestion.status,
        "created_at": suggestion.created_at.isoformat(),
        "expires_at": suggestion.expires_at.isoformat() if suggestion.expires_at else None,
        "signal": {
            "id": signal.pk,
            "layer": signal.layer,
            "content": signal.content,
            "advertiser": signal.advertiser,
            "category": signal.category,
            "expires_at": signal.expires_at.isoformat() if signal.expires_at else None,
        },
        "strategies": ranked(suggestion.strategies),
        "templates": ranked(suggestion.templates),
    }
