"""The Prometheus families every layer records into (served at /metrics by the site).

It sits in the bottom app so that search and embedding here, the funnel in governance and
the API can all record without importing upward; the site only exposes the registry.
Counters and histograms live in the process that did the work (the web server for the
API); figures that must be true across processes (memory counts, the review queue) are
read from the database at scrape time by the collectors the site adds."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Counter, Histogram

PREFIX = "lingix"
REGISTRY = CollectorRegistry(auto_describe=True)

# Model calls take seconds, local work milliseconds: two bucket ladders.
_MODEL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0)
_LOCAL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

DECISIONS = Counter(
    f"{PREFIX}_decisions",
    "Write-funnel and review decisions, by action and the stage that decided",
    ["action", "stage"],
    registry=REGISTRY,
)
JUDGE_LATENCY = Histogram(
    f"{PREFIX}_judge_latency_seconds",
    "Time of one judge call (the funnel's judge step), by provider and outcome",
    ["provider", "outcome"],
    buckets=_MODEL_BUCKETS,
    registry=REGISTRY,
)
EMBEDDING_LATENCY = Histogram(
    f"{PREFIX}_embedding_latency_seconds",
    "Time of one embedding call, by kind (query or passages) and model",
    ["kind", "model"],
    buckets=_MODEL_BUCKETS,
    registry=REGISTRY,
)
SEARCH_LATENCY = Histogram(
    f"{PREFIX}_search_latency_seconds",
    "Time of one retrieval (filter, candidates, fusion, rerank), by mode",
    ["mode"],
    buckets=_LOCAL_BUCKETS,
    registry=REGISTRY,
)
RECALL_REQUESTS = Counter(
    f"{PREFIX}_recall_requests",
    "Auto-recall requests, by whether a memory block was injected",
    ["injected"],
    registry=REGISTRY,
)
RECALL_HITS = Counter(f"{PREFIX}_recall_hits", "Memories placed into recall blocks", registry=REGISTRY)
RECALL_TOKENS = Counter(f"{PREFIX}_recall_injected_tokens", "Prompt tokens injected by recall blocks", registry=REGISTRY)
RATE_LIMIT_REFUSALS = Counter(
    f"{PREFIX}_rate_limit_refusals",
    "API requests refused with 429, by limit (rate or concurrency)",
    ["limit"],
    registry=REGISTRY,
)


def record_decision(*, action: str, stage: str) -> None:
    DECISIONS.labels(action=action or "none", stage=stage or "unknown").inc()


def record_recall(*, hits: int, tokens: int) -> None:
    RECALL_REQUESTS.labels(injected="yes" if hits else "no").inc()
    RECALL_HITS.inc(max(0, hits))
    RECALL_TOKENS.inc(max(0, tokens))


def record_rate_limit_refusal(*, limit: str) -> None:
    RATE_LIMIT_REFUSALS.labels(limit=limit).inc()


@contextmanager
def timed(histogram: Histogram, **labels: str) -> Iterator[dict[str, str]]:
    """Observe the block's duration; the caller may change labels (e.g. an outcome) inside."""
    started = time.perf_counter()
    try:
        yield labels
    finally:
        histogram.labels(**labels).observe(time.perf_counter() - started)
