"""One interface for every judge: classify free text, check value criteria, judge a
candidate. Each call returns the answer with the telemetry a Trace row records."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

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


class JudgeProvider(ABC):
    name: str = ""
    model: str = ""

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
