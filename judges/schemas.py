"""What a judge must answer, as pydantic models. Model output that does not validate
is treated as no answer at all (the event is parked), never coerced into a write."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, StrictInt

from textrules.claims import Facet, RelationKind
from textrules.reasons import Reason

TriggerName = Literal[
    "user_feedback",
    "strategy_execution",
    "environment_change",
    "rule_update",
    "anomaly_pattern",
    "performance_optimization",
    "cross_domain_correlation",
    "periodic_pattern",
    "none",
]
AttributionName = Literal[
    "user_confirmed",
    "user_stated",
    "assistant_suggestion",
    "agent_inference",
    "tool_observation",
    "human_config",
    "rule_update",
    "unknown",
]
GroundingName = Literal["grounded", "weakly_grounded", "unsupported", "unknown"]
ConsistencyName = Literal["consistent", "duplicate", "contradiction", "unknown"]


# A model answers its reasons in its own words; the offline judge states them as codes.
# InstanceOf: a Reason only as a Python object, so no model answer can forge a code.
ReasonOrText = InstanceOf[Reason] | str


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ClassifyOut(_Strict):
    trigger_type: TriggerName
    confidence: float = Field(ge=0, le=1)
    summary: str = ""
    fields: dict[str, Any] = Field(default_factory=dict)
    reasons: list[ReasonOrText] = Field(default_factory=list)


class CriterionOut(_Strict):
    key: str
    met: bool
    evidence: str = ""


class ValueOut(_Strict):
    criteria: list[CriterionOut] = Field(min_length=3, max_length=3)
    reasons: list[ReasonOrText] = Field(default_factory=list)


class JudgeOut(_Strict):
    action: Literal["WRITE", "UPDATE", "REJECT", "PENDING_REVIEW"]
    source_attribution: AttributionName = "unknown"
    grounding: GroundingName = "unknown"
    consistency: ConsistencyName = "unknown"
    confidence: float = Field(ge=0, le=1, default=0.5)
    reasons: list[ReasonOrText] = Field(default_factory=list)


class DoubtMemOut(_Strict):
    """The JSON a DoubtMem model emits after its <doubt-check> block (WRITE/UPDATE/REJECT only)."""

    action: Literal["WRITE", "UPDATE", "REJECT"]
    source_attribution: AttributionName = "unknown"
    grounding: GroundingName = "unknown"
    consistency: ConsistencyName = "unknown"
    confidence: float = Field(ge=0, le=1, default=0.6)
    reason: str = ""


class RelationOut(_Strict):
    """A model's verdict on one remembered statement (judges/prompts.py RELATE_SYSTEM).
    Every field is required: a verdict without its facet or its reason is no verdict."""

    id: StrictInt  # a JSON number; true or "12" is not an id
    relation: RelationKind
    facet: Facet
    reason: str = Field(min_length=1, max_length=600)


class RelationsOut(_Strict):
    relations: list[RelationOut] = Field(max_length=32)
