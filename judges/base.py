"""One interface for every judge: classify free text, check value criteria, judge a
candidate, relate a candidate to what is remembered. Each call returns the answer with
the telemetry a Trace row records."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from judges.prompts import PROMPT_VERSIONS
from judges.schemas import RelationOut
from textrules.claims import Facet

M = TypeVar("M", bound=BaseModel)


@dataclass
class Telemetry:
    provider: str
    model: str
    prompt_version: str
    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    attempts: int = 1
    notes: list[str] = field(default_factory=list)


@dataclass
class ProviderAnswer(Generic[M]):
    value: M
    telemetry: Telemetry


class ProviderUnavailable(Exception):
    """The judge gave no usable answer (timeout, HTTP error after retries, malformed
    output). The funnel parks the event; it never writes on a missing verdict."""

    def __init__(self, reason: str, telemetry: Telemetry):
        super().__init__(reason)
        self.reason = reason
        self.telemetry = telemetry


@dataclass
class JudgeRequest:
    """What the judge sees. `content` and `data` are untrusted and are always delimited."""

    content: str
    trigger_type: str
    source: str
    layer: str
    advertiser: str | None
    data: dict[str, Any]
    rule_attribution: str
    grounding_hint: str
    related: list[dict[str, Any]]


class RelationSource(StrEnum):
    MODEL = "model"
    OFFLINE = "offline"


@dataclass(frozen=True)
class RelationNeighbour:
    """A remembered statement near the candidate, with what the rules read in it and
    their verdict (a textrules.claims RelationKind and the Facet that decided)."""

    id: int
    content: str
    claim: dict[str, Any]
    relation: str
    facet: str
    detail: str = ""


@dataclass(frozen=True)
class RelationRequest:
    """`content` and every neighbour's text are untrusted and are always delimited."""

    content: str
    claim: dict[str, Any]
    neighbours: list[RelationNeighbour]


@dataclass
class RelationAnswer:
    """Verdicts by memory id, only for ids that were asked about. `source` says whose they
    are; `fallback` why they are the rules' although a model was configured."""

    verdicts: dict[int, RelationOut]
    source: RelationSource
    telemetry: Telemetry
    fallback: str = ""
    ignored: list[str] = field(default_factory=list)
    model_called: bool = False


def rule_verdicts(request: RelationRequest) -> dict[int, RelationOut]:
    """The rules' own verdicts in the shape a model answers."""
    out = {}
    for n in request.neighbours:
        facet = n.facet if n.facet in Facet._value2member_map_ else Facet.TEXT
        try:
            out[n.id] = RelationOut(id=n.id, relation=n.relation, facet=facet, reason=n.detail or f"rules: {n.relation} ({facet})")
        except ValidationError:
            continue  # not a relation the rules name: the funnel keeps its own verdict for it
    return out


def rules_answer(request: RelationRequest, telemetry: Telemetry, *, fallback: str = "", model_called: bool = False) -> RelationAnswer:
    return RelationAnswer(rule_verdicts(request), RelationSource.OFFLINE, telemetry, fallback=fallback, model_called=model_called)


class JudgeProvider(ABC):
    name: str = ""
    model: str = ""
    # True when `relate` asks a model; otherwise it restates the rules' verdicts and the
    # funnel does not build a request for it.
    relation_model: bool = False

    @abstractmethod
    def classify(self, *, text: str, source: str) -> ProviderAnswer: ...

    @abstractmethod
    def assess_value(
        self,
        *,
        trigger_type: str,
        content: str,
        data: dict[str, Any],
        source: str,
        offline_checks: dict[str, tuple[bool, str]],
        criteria: list[dict[str, str]],
    ) -> ProviderAnswer: ...

    @abstractmethod
    def judge(self, *, request: JudgeRequest) -> ProviderAnswer: ...

    def relate(self, *, request: RelationRequest) -> RelationAnswer:
        """How the candidate relates to each neighbour. A provider without a relation model
        answers with the rules' verdicts; one with a model falls back to them on any failure,
        so this never raises and never parks an event by itself."""
        started = time.perf_counter()
        telemetry = Telemetry(provider=self.name, model=self.model, prompt_version=PROMPT_VERSIONS["relate"])
        answer = rules_answer(request, telemetry)
        telemetry.latency_ms = (time.perf_counter() - started) * 1000
        return answer
