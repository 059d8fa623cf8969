"""Reflection: a periodic look back over memory and the funnel's decisions.

Three kinds of finding, each opened as a `reflection` review item (once: an open item
for the same finding is not duplicated) and collected in a stored ReflectionReport:
- stale: active memories nobody recalled or reinforced within the window, of low
  importance, older than the window (L1 rules and TTL-bound L3 signals excluded);
- contradiction: two active memories of the same scope that state the same claim with
  different numbers, or with opposite direction or negation; or a memory that goes against
  an L1 rule binding its scope (the advertiser's or a global one), read as the funnel reads it;
- repeated_reject: the funnel rejected the same proposal from the same actor again and
  again, or one actor keeps tripping the same rule.

Detection is deterministic (no judge call): the funnel's own relation of two claims
(governance/funnel/relation.py), so reflection and the write path never disagree. The
bundled embedder's cosine only finds pairs worth reading: its scores for any two ad-ops
sentences sit between 0.85 and 0.95, too close together to tell one claim from another."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations, islice
from typing import Any

import numpy as np
from django.db.models import Q

from governance.constants import Action, ReviewKind, ReviewStatus
from governance.funnel.related import memory_claim
from governance.funnel.relation import against_rule, relate, rule_in_scope
from governance.knowledge.entities.selectors import names_known_in, subject_identity
from governance.models import MemoryEvent, ReflectionReport, ReviewItem
from governance.reasons import row_reasons
from lingix_config import config
from memories.constants import Layer, Status
from memories.embeddings.store import memory_vectors, with_vectors
from memories.hashing import content_hash
from memories.lifecycle.db import atomic_batch
from memories.lifecycle.retention import memory_retention
from memories.models import Memory
from memories.timefmt import iso_local
from textrules.claims import Claim, RelationKind, Wording
from textrules.reasons import Reason, ReasonCode
from textrules.safety import scan_data

ACTOR = "reflection"


@dataclass(frozen=True)
class ReflectionConfig:
    window_days: int = 30
    # importance at or under the neutral midpoint: nobody marked it as worth keeping
    stale_importance_at_most: float = 5.0
    repeated_reject_min: int = 3
    repeated_reason_min: int = 5
    max_findings_per_kind: int = 100
    # Scopes larger than this are compared only within the same category, to keep the
    # pairwise pass cheap.
    max_scope_pairs: int = 200_000


DEFAULT_REFLECTION = ReflectionConfig()


# Numbers left out when two refusals' reasons are compared.
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


# --- claims -------------------------------------------------------------------
@dataclass(frozen=True)
class _Claim:
    memory: Memory
    claim: Claim
    vector: np.ndarray | None


def _claim(memory: Memory, vector: np.ndarray | None) -> _Claim:
    return _Claim(memory=memory, claim=memory_claim(memory), vector=vector)


def contradiction_between(
    a: _Claim, b: _Claim, *, known: Mapping[str, str] | None = None, advertiser: str | None = None, rule: bool = False
) -> dict[str, Any] | None:
    """Why a and b cannot both hold, or None: the funnel's own relation (similarity finds
    the pair, the claims and the names of their subject decide), so reflection and the write
    path never disagree. Two names nobody has tied together are a question, not a
    contradiction; two the store knows apart are two things. `known`: what the store knows
    of the scope's names, read once for the pass (names_known_in). `advertiser`: the scope
    the pair is read in (a global rule is read in the advertiser's scope it binds). `rule`:
    a is an L1 rule and b a memory of another layer, read as the funnel reads them
    (against_rule)."""
    cosine = 0.0
    if a.vector is not None and b.vector is not None and a.vector.shape == b.vector.shape:
        cosine = float(a.vector @ b.vector)
    found = relate(
        b.claim,
        rule_in_scope(a.claim, b.claim) if rule else a.claim,
        cosine=cosine,
        same_text=a.memory.content_hash == b.memory.content_hash,
        wording=Wording(a.memory.content, b.memory.content),
        related_cosine=config().memory_related_cosine,
        identity=subject_identity(old_text=a.memory.content, new_text=b.memory.content, advertiser=advertiser, known=known),
    )
    if rule:
        found = against_rule(found, rule=a.claim, rule_text=a.memory.content, other=b.claim, other_text=b.memory.content)
    if found is None or found.kind != RelationKind.CONTRADICTION:
        return None
    return {"type": found.signal, "detail": found.detail}


# --- findings -----------------------------------------------------------------
def find_stale(*, now: datetime, config: ReflectionConfig) -> list[dict[str, Any]]:
    cutoff = now - timedelta(days=config.window_days)
    queryset = (
        Memory.objects.filter(
            status=Status.ACTIVE, created_at__lte=cutoff, importance__lte=config.stale_importance_at_most, reinforcement_count=0
        )
        .filter(Q(last_accessed_at__isnull=True) | Q(last_accessed_at__lte=cutoff))
        .exclude(layer__in=[Layer.L1, Layer.L3])
        .order_by("importance", "created_at", "id")
    )
    findings = []
    for memory in queryset[: config.max_findings_per_kind]:
        retention = memory_retention(memory, now=now)
        findings.append(
            {
                "key": f"stale:{memory.pk}",
                "memory_id": memory.pk,
                "layer": memory.layer,
                "advertiser": memory.advertiser,
                "content": memory.content[:200],
                "importance": memory.importance,
                "last_accessed_at": iso_local(memory.last_accessed_at),
                "idle_days": round(retention.idle_days, 1),
                "retention": round(retention.score, 4),
            }
        )
    return findings


def find_contradictions(*, config: ReflectionConfig) -> list[dict[str, Any]]:
    scopes: dict[tuple, list[_Claim]] = defaultdict(list)
    memories = list(
        with_vectors(
            Memory.objects.filter(status=Status.ACTIVE)
            .only(
                "id",
                "layer",
                "content",
                "content_hash",
                "claim",
                "data",
                "embedding",
                "advertiser",
                "business_line",
                "category",
                "importance",
            )
            .order_by("id")
        )
    )
    for memory, vector in zip(memories, memory_vectors(memories), strict=True):
        scopes[(memory.advertiser, memory.layer)].append(_claim(memory, vector))
    findings: list[dict[str, Any]] = []
    for (advertiser, layer), claims in scopes.items():
        # The write path compares a proposal with its own layer, and with the L1 rules that
        # bind it (its advertiser's and the global ones), where only a contradiction counts;
        # so does reflection. L4 is never written from outside: the funnel never compares it.
        rules = (
            []
            if layer in {Layer.L1, Layer.L4}
            else [*scopes.get((advertiser, Layer.L1), []), *(scopes.get((None, Layer.L1), []) if advertiser else [])]
        )
        known = names_known_in(texts=[claim.memory.content for claim in [*claims, *rules]], advertiser=advertiser)
        groups = [claims]
        if len(claims) * (len(claims) - 1) // 2 > config.max_scope_pairs:
            by_category: dict[str, list[_Claim]] = defaultdict(list)
            for claim in claims:
                by_category[claim.memory.category].append(claim)
            groups = list(by_category.values())
        pairs = [(a, b, False) for group in groups for a, b in combinations(group, 2)]
        # Bounded like the scope's own pairs, without building every rule × memory pair first.
        pairs += islice(((rule, claim, True) for rule in rules for claim in claims), config.max_scope_pairs)
        for a, b, against in pairs:
            why = contradiction_between(a, b, known=known, advertiser=advertiser, rule=against)
            if why is None:
                continue
            findings.append(
                {
                    "key": f"contradiction:{a.memory.pk}:{b.memory.pk}",
                    "memory_id": a.memory.pk,
                    "related_memory_id": b.memory.pk,
                    "layers": [a.memory.layer, b.memory.layer],
                    "advertiser": advertiser,
                    "contents": [a.memory.content[:200], b.memory.content[:200]],
                    **why,
                }
            )
            if len(findings) >= config.max_findings_per_kind:
                return findings
    return findings


def _normal_reason(reason: Reason) -> str:
    # Two refusals for the same reason share a code; a row from before codes, its words less the numbers.
    if reason.code != ReasonCode.TEXT:
        return str(reason.code)
    return _NUMBER.sub("#", reason.english()).strip()[:160]


def find_repeated_rejects(*, now: datetime, config: ReflectionConfig) -> list[dict[str, Any]]:
    since = now - timedelta(days=config.window_days)
    events = MemoryEvent.objects.filter(action=Action.REJECT, created_at__gt=since, created_at__lte=now).only(
        "id", "actor", "source", "advertiser", "raw_text", "summary", "reasons", "reason_codes", "event_type"
    )
    same_text: dict[tuple, list[MemoryEvent]] = defaultdict(list)
    same_reason: dict[tuple, list[MemoryEvent]] = defaultdict(list)
    for event in events.iterator(chunk_size=500):
        who = event.actor or f"source:{event.source}"
        text = event.raw_text or event.summary
        if text:
            same_text[(who, event.advertiser, content_hash(text))].append(event)
        if event.reasons:
            same_reason[(who, _normal_reason(row_reasons(event)[0]))].append(event)
    findings = []
    for (who, advertiser, digest), group in sorted(same_text.items(), key=lambda kv: -len(kv[1])):
        if len(group) < config.repeated_reject_min:
            continue
        sample = group[0]
        findings.append(
            {
                "key": f"repeated_reject:text:{who}:{advertiser}:{digest[:16]}",
                "pattern": "same_proposal",
                "actor": who,
                "advertiser": advertiser,
                "count": len(group),
                "text": (sample.raw_text or sample.summary)[:200],
                "reasons": [str(r) for r in sample.reasons[:3]],
                "event_ids": sorted(e.pk for e in group)[:20],
            }
        )
    covered = {f["actor"] for f in findings}
    for (who, reason), group in sorted(same_reason.items(), key=lambda kv: -len(kv[1])):
        # An actor already flagged for repeating one proposal would be flagged twice.
        if len(group) < config.repeated_reason_min or who in covered:
            continue
        findings.append(
            {
                "key": f"repeated_reject:reason:{who}:{content_hash(reason)[:16]}",
                "pattern": "same_reason",
                "actor": who,
                "advertiser": group[0].advertiser if len({e.advertiser for e in group}) == 1 else None,
                "count": len(group),
                "reason": row_reasons(group[0])[0].english(),
                "first_reason": row_reasons(group[0])[0].as_json(),
                "event_ids": sorted(e.pk for e in group)[:20],
            }
        )
    return findings[: config.max_findings_per_kind]


# --- the pass -----------------------------------------------------------------
def _item_reason(kind: str, finding: dict[str, Any]) -> Reason:
    if kind == "stale":
        return Reason.of(
            ReasonCode.STALE_MEMORY,
            layer=finding["layer"],
            id=finding["memory_id"],
            days=finding["idle_days"],
            importance=finding["importance"],
        )
    if kind == "contradiction":
        return Reason.of(
            ReasonCode.MEMORIES_CONTRADICT, id=finding["memory_id"], other_id=finding["related_memory_id"], signal=finding["type"]
        )
    who = finding["actor"]
    if finding["pattern"] == "same_proposal":
        return Reason.of(ReasonCode.SAME_PROPOSAL_REJECTED, actor=who, count=finding["count"])
    return Reason.of(ReasonCode.SAME_REASON_REJECTED, actor=who, count=finding["count"], reason=finding["first_reason"])


def _open_review_items(kind_findings: list[tuple[str, dict[str, Any]]], *, now: datetime, window_days: int) -> list[int]:
    """One item per finding: none while an item for it is open, nor within a window of a
    reviewer settling it (a reviewer who kept a stale memory should not be asked daily)."""
    from governance.review.services import review_item_create

    recent = Q(status=ReviewStatus.OPEN) | Q(decided_at__gt=now - timedelta(days=window_days))
    # Ordered by id so the newest item wins. The report links it with its status: open (a
    # reviewer has it), or settled within the window (the finding rests until then).
    known_items = {
        (item.payload or {}).get("key"): (item.pk, item.status)
        for item in ReviewItem.objects.filter(recent, kind=ReviewKind.REFLECTION).only("payload", "status").order_by("id")
    }
    created = []
    for kind, finding in kind_findings:
        if finding["key"] in known_items:
            finding["review_item_id"], finding["review_item_status"] = known_items[finding["key"]]
            continue
        memory_id = finding.get("memory_id")
        memory = Memory.objects.filter(pk=memory_id).first() if memory_id else None
        related_id = finding.get("related_memory_id")
        related = Memory.objects.filter(pk=related_id).first() if related_id else None
        item = review_item_create(
            kind=ReviewKind.REFLECTION,
            memory=memory,
            related_memory=related,
            layer=memory.layer if memory else "",
            advertiser=finding.get("advertiser"),
            reason=_item_reason(kind, finding),
            payload={"finding": kind, **finding},
            proposed_by=ACTOR,
        )
        finding["review_item_id"], finding["review_item_status"] = item.pk, item.status
        known_items[finding["key"]] = (item.pk, item.status)
        created.append(item.pk)
    return created


def reflect(
    *, now: datetime, actor: str = "scheduler", window_days: int | None = None, config: ReflectionConfig = DEFAULT_REFLECTION
) -> ReflectionReport:
    """One reflection pass: find, open review items, store the report. The finding step
    only reads; the writes happen in one short transaction at the end."""
    if window_days is not None:
        if window_days < 1:
            from memories.exceptions import InvalidInput

            raise InvalidInput("window_days must be at least 1")
        config = ReflectionConfig(**{**config.__dict__, "window_days": window_days})
    stale = find_stale(now=now, config=config)
    contradictions = find_contradictions(config=config)
    rejects = find_repeated_rejects(now=now, config=config)

    def store() -> ReflectionReport:
        from governance.knowledge.organise.consolidate import consolidations_propose

        consolidations = consolidations_propose(now=now)
        created = _open_review_items(
            [("stale", f) for f in stale] + [("contradiction", f) for f in contradictions] + [("repeated_reject", f) for f in rejects],
            now=now,
            window_days=config.window_days,
        )
        counts = {"stale": len(stale), "contradictions": len(contradictions), "repeated_rejects": len(rejects)}
        created += [c["review_item_id"] for c in consolidations if c["status"] == "proposed"]
        summary = (
            f"{counts['stale']} stale, {counts['contradictions']} contradictions, "
            f"{counts['repeated_rejects']} repeated-reject patterns over {config.window_days} days; "
            f"{len(created)} new review items"
        ) + (f"; {len(consolidations)} semantic consolidations proposed or waiting" if consolidations else "")
        # Findings quote memories and rejected events; anything that slipped into them by a
        # path outside the funnel must not be copied once more into the report.
        findings, _ = scan_data(
            {
                "as_of": iso_local(now),
                "run_by": actor,
                "counts": counts,
                "review_items_created": created,
                "stale": stale,
                "contradictions": contradictions,
                "repeated_rejects": rejects,
                "consolidations": consolidations,
            }
        )
        return ReflectionReport.objects.create(created_at=now, window_days=config.window_days, summary=summary, findings=findings)

    return atomic_batch(store)


def reflection_report_dict(report: ReflectionReport) -> dict[str, Any]:
    return {
        "report_id": report.pk,
        "created_at": iso_local(report.created_at),
        "window_days": report.window_days,
        "summary": report.summary,
        **report.findings,
    }


def reflection_run(*, actor: str, now: datetime | None = None, window_days: int | None = None) -> dict[str, Any]:
    """What `memory reflect`, POST /api/v1/reflect and the scheduled task return."""
    from django.utils import timezone

    return reflection_report_dict(reflect(now=now or timezone.now(), actor=actor, window_days=window_days))
