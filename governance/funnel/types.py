"""Plain data passed between the funnel stages and returned to callers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from textrules.reasons import Reason

# What a stage can conclude. PASS lets the event continue; the rest are final.
PASS = "PASS"


@dataclass
class StageOutcome:
    stage: str
    decision: str
    reasons: list[Reason] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)
    provider: str = ""
    model: str = ""
    prompt_version: str = ""
    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stage": self.stage,
            "decision": self.decision,
            "reasons": [r.english() for r in self.reasons],
            "reason_codes": [r.as_json() for r in self.reasons],
            "scores": self.scores,
        }
        if self.provider:
            out.update(provider=self.provider, model=self.model, prompt_version=self.prompt_version)
        out["latency_ms"] = round(self.latency_ms, 3)
        if self.tokens_in or self.tokens_out:
            out.update(tokens_in=self.tokens_in, tokens_out=self.tokens_out, cost_usd=self.cost_usd)
        return out


@dataclass
class Candidate:
    """The memory an event proposes, as the stages refine it."""

    content: str
    trigger_type: str
    source: str
    layer: str = ""
    layer_requested: bool = False
    advertiser: str | None = None
    business_line: str = ""
    category: str = ""
    data: dict[str, Any] = field(default_factory=dict)  # caller-supplied raw data (evidence)
    fields: dict[str, Any] = field(default_factory=dict)  # extracted from the text (not evidence)
    turns: list[dict[str, str]] = field(default_factory=list)  # role-tagged conversation the text came from
    attribution: str = "unknown"
    grounding: str = "unknown"
    consistency: str = "unknown"
    confidence: float = 0.5
    importance: float = 5.0
    observed_at: datetime | None = None
    expires_at: datetime | None = None
    conflict_with: Any = None  # the existing Memory an UPDATE supersedes or a conflict names
    conflict_kind: str = ""  # "", "duplicate", "contradiction"
    probe: Any = None  # the candidate's embedding, computed once
    related: list[Any] | None = None  # [{memory, cosine, relation}] near the candidate, once looked up
    claim: Any = None  # its textrules.claims.Claim, read once
    relation_answer: Any = None  # judges.base.RelationAnswer for its neighbours, asked before the transaction

    def as_payload(self) -> dict[str, Any]:
        """What a parked candidate needs so a reviewer's approval can write it later."""
        return {
            "content": self.content,
            "layer": self.layer,
            "trigger_type": self.trigger_type,
            "advertiser": self.advertiser,
            "business_line": self.business_line,
            "category": self.category,
            "source": self.source,
            "source_attribution": self.attribution,
            "grounding": self.grounding,
            "confidence": round(self.confidence, 4),
            "importance": round(self.importance, 3),
            "data": self.data,
            "observed_at": self.observed_at.isoformat() if self.observed_at else None,
            "turns": self.turns,
            "supersedes": getattr(self.conflict_with, "pk", None) if self.conflict_kind == "contradiction" else None,
        }


@dataclass
class Decision:
    action: str
    layer: str | None
    memory_id: int | None
    event_id: int | None
    # English, as the API and the CLI return them; the same reasons as codes beside them.
    reasons: list[str] = field(default_factory=list)
    reason_codes: list[dict[str, Any]] = field(default_factory=list)
    stages: list[dict[str, Any]] = field(default_factory=list)
    review_item_id: int | None = None
    replayed: bool = False

    def as_dict(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action,
            "layer": self.layer or None,
            "memory_id": self.memory_id,
            "event_id": self.event_id,
            "reasons": list(self.reasons),
            "reason_codes": list(self.reason_codes),
        }
        if self.review_item_id is not None:
            out["review_item_id"] = self.review_item_id
        if self.replayed:
            out["replayed"] = True
        if explain:
            out["stages"] = list(self.stages)
        return out
