"""Deep search: rewrite the query into several sub-queries, search each, fuse, rerank.

The fast path (memories.selectors.memory_search) answers one query with one hybrid
ranking. Deep mode spends more time for recall: a question asked with other words than the
memory's (竞价 for 出价, RED for 小红书, a question for a statement) gets a sub-query that
uses them, the sub-queries' hybrid scores are added up per memory (the original's counting
more), and the fused candidates are reranked. Adding scores rather than ranks keeps what
the fast path knows: a rewrite that finds nothing new leaves the fast order as it was,
where reciprocal-rank fusion reshuffled it (LoCoMo recall@10 over today's fast path, in the
bench replay: 0.748 with ranks, 0.754 with scores; bench.locomo gives 0.754 for this module).

Who rewrites and reranks is injected: `DeepHooks` carries the two callables. This module
ships the deterministic offline pair (synonym and entity expansion from the ad-ops table,
question to statement; a feature rerank). Model-backed hooks live above memories (the model
clients belong to governance and judges): governance registers a factory with
`register_hooks_factory` at startup (the gateway model for both steps, or a cross-encoder
for the rerank step), and callers may pass hooks explicitly. `deep["rewriter"]` and
`deep["reranker"]` name who did each step. When a hook fails (timeout, malformed answer,
server down) deep mode answers with the fast result and says so in `deep["fallback"]` (the
reason) and `deep["fallback_step"]` (which step failed); it never fails a search the fast
path can answer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from memories.search.hybrid import DEFAULT_RANKING, RankingConfig
from memories.search.query import keyword_text, query_language
from memories.search.synonyms import expand_terms
from memories.search.tokens import query_tokens, text_tokens


class DeepHookFailure(Exception):
    """A rewrite or rerank hook could not answer; `reason` is short and safe to return
    (timeout, malformed, unavailable), never the model's text or a key."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Candidate:
    memory_id: int
    content: str
    score: float


Rewriter = Callable[[str], list[str]]
Reranker = Callable[[str, list[Candidate]], list[int]]


@dataclass(frozen=True)
class DeepHooks:
    name: str
    rewrite: Rewriter
    rerank: Reranker
    # Who reranks, when that is not `name` (a cross-encoder behind a model or offline rewrite).
    rerank_name: str = ""

    @property
    def reranker(self) -> str:
        return self.rerank_name or self.name


class DeepStep(StrEnum):
    """The step whose hook failed, reported beside the fallback reason."""

    REWRITE = "rewrite"
    RERANK = "rerank"


@dataclass
class DeepResponse:
    results: list[Any]
    embed_ms: float
    search_ms: float
    query_truncated: bool = False
    query_chars_embedded: int = 0
    deep: dict[str, Any] = field(default_factory=dict)
    # The original query's embedding cost (sub-queries are reported in embed_ms).
    query_embedding: dict[str, Any] = field(default_factory=dict)


# How many sub-queries are searched at most (the original included), how deep each list
# is read, and how many fused candidates are reranked (in the bench replay 50 beat 30 on
# both retrieval sets: Chinese R@10 0.973 → 0.977, LoCoMo 0.753 → 0.754).
MAX_SUBQUERIES = 4
SUBQUERY_DEPTH = 50
RERANK_POOL = 50
# The original question counts more than any rewrite of it (a model's rewrite may be wrong).
ORIGINAL_WEIGHT = 1.5

_EN_LEAD = re.compile(
    r"^\s*(?:what|when|where|who|whom|which|how|why)\b(?:\s+(?:kind|type|sort)\s+of)?"
    r"(?:\s+(?:did|does|do|is|are|was|were|has|have|had|would|could|can|will|should|might))?\s+",
    re.IGNORECASE,
)

_hooks_factory: Callable[[], DeepHooks | None] | None = None


def register_hooks_factory(factory: Callable[[], DeepHooks | None] | None) -> None:
    """Let a higher layer supply model-backed hooks (called per deep search; returning None
    means: use the offline pair). Passing None removes the factory."""
    global _hooks_factory
    _hooks_factory = factory


def question_to_statement(query: str) -> str:
    """'When did Caroline go to the support group?' → 'Caroline go to the support group';
    a Chinese question loses its question words (memories.search.query.keyword_text)."""
    text = query.strip().rstrip("?？")
    if query_language(text) == "zh":
        return keyword_text(text)
    return _EN_LEAD.sub("", text, count=1).strip() or text


def offline_rewrite(query: str) -> list[str]:
    """The original, its statement form, and the query with every ad-ops term's other names
    appended (出价 → 竞价 调价 bid …, RED → 小红书 聚光 …)."""
    out = [query, question_to_statement(query)]
    synonyms = expand_terms(query)
    if synonyms:
        out.append(f"{question_to_statement(query)} {' '.join(synonyms)}")
    return out


def _token_set(text: str) -> set[str]:
    return set(text_tokens(text.lower()))


def feature_rerank(query: str, candidates: list[Candidate]) -> list[int]:
    """Order by the fused score, lifted by how much of the question a memory covers: the
    share of the query's terms (each counted once, a synonym standing in for its term)
    the memory contains. bm25 can rank a memory high on one rare term alone; coverage
    prefers the one that answers all of the question."""
    if not candidates:
        return []
    terms = query_tokens(keyword_text(query))
    groups = [[t, *[s for s in query_tokens(" ".join(expand_terms(t)))]] for t in terms]
    top = max(c.score for c in candidates) or 1.0
    scored = []
    for c in candidates:
        have = _token_set(c.content)
        coverage = sum(1 for g in groups if any(t in have for t in g)) / len(groups) if groups else 0.0
        scored.append((0.8 * c.score / top + 0.2 * coverage, c.memory_id))
    scored.sort(key=lambda row: row[0], reverse=True)
    return [mid for _, mid in scored]


OFFLINE_HOOKS = DeepHooks(name="offline", rewrite=offline_rewrite, rerank=feature_rerank)


def _clean_subqueries(query: str, rewrites: list[str]) -> list[str]:
    seen: dict[str, None] = {query.strip(): None}
    for text in rewrites:
        text = (text or "").strip()[:500]
        if text and text.lower() not in {s.lower() for s in seen}:
            seen[text] = None
        if len(seen) >= MAX_SUBQUERIES:
            break
    return list(seen)


def deep_search(
    *,
    query: str,
    advertisers: tuple[str, ...] | None = None,
    include_global: bool = True,
    business_line: str | None = None,
    layers: tuple[str, ...] | None = None,
    kinds: tuple[str, ...] | None = None,
    category: str | None = None,
    top_k: int = 5,
    record_access: bool = True,
    config: RankingConfig = DEFAULT_RANKING,
    hooks: DeepHooks | None = None,
    as_of: datetime | None = None,
) -> DeepResponse:
    """Deep retrieval in the same scope rules as memory_search (which runs every sub-query)."""
    from memories.access import access_recorder
    from memories.selectors import MAX_TOP_K, SearchResult, memory_search

    started = time.perf_counter()
    top_k = max(1, min(int(top_k), MAX_TOP_K))
    if hooks is None and _hooks_factory is not None:
        hooks = _hooks_factory()
    hooks = hooks or OFFLINE_HOOKS
    scope = {
        "advertisers": advertisers,
        "include_global": include_global,
        "business_line": business_line,
        "layers": layers,
        "kinds": kinds,
        "category": category,
        "as_of": as_of,
    }
    info: dict[str, Any] = {"rewriter": hooks.name, "reranker": hooks.reranker}

    def fast(reason: str, step: DeepStep) -> DeepResponse:
        response = memory_search(query=query, top_k=top_k, record_access=record_access, config=config, **scope)
        info["fallback"] = reason
        info["fallback_step"] = step
        return DeepResponse(
            results=response.results,
            embed_ms=response.embed_ms,
            search_ms=(time.perf_counter() - started) * 1000 - response.embed_ms,
            query_truncated=response.query_truncated,
            query_chars_embedded=response.query_chars_embedded,
            deep=info,
            query_embedding=response.query_embedding,
        )

    t0 = time.perf_counter()
    try:
        subqueries = _clean_subqueries(query, hooks.rewrite(query))
    except DeepHookFailure as exc:
        info["rewrite_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return fast(exc.reason, DeepStep.REWRITE)
    info["rewrite_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    info["subqueries"] = subqueries

    fused: dict[int, float] = {}
    results_by_id: dict[int, Any] = {}
    embed_ms = 0.0
    first = None
    for index, sub in enumerate(subqueries):
        response = memory_search(query=sub, top_k=SUBQUERY_DEPTH, record_access=False, config=config, **scope)
        first = first or response
        embed_ms += response.embed_ms
        weight = ORIGINAL_WEIGHT if index == 0 else 1.0
        for result in response.results:
            fused[result.memory.pk] = fused.get(result.memory.pk, 0.0) + weight * result.score
            results_by_id.setdefault(result.memory.pk, result)
    pool = sorted(fused, key=fused.__getitem__, reverse=True)[:RERANK_POOL]
    candidates = [Candidate(memory_id=mid, content=results_by_id[mid].memory.content, score=fused[mid]) for mid in pool]

    t0 = time.perf_counter()
    try:
        order = hooks.rerank(query, candidates)
    except DeepHookFailure as exc:
        info["rerank_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return fast(exc.reason, DeepStep.RERANK)
    info["rerank_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    # A reranker may only reorder the candidates: unknown ids are dropped, forgotten ones
    # keep their fused order after the ranked ones.
    known = [mid for mid in dict.fromkeys(order) if mid in fused]
    ordered = known + [mid for mid in pool if mid not in set(known)]
    results = []
    for position, mid in enumerate(ordered[:top_k]):
        base = results_by_id[mid]
        explain = {**base.explain, "deep_fused": round(fused[mid], 4), "deep_rank": position + 1}
        # The score follows the final order (a model reranker gives no scores of its own).
        results.append(SearchResult(memory=base.memory, score=round(1.0 / (position + 1), 4), explain=explain))
    if record_access and as_of is None:
        access_recorder.record([r.memory.pk for r in results])
    return DeepResponse(
        results=results,
        embed_ms=embed_ms,
        search_ms=(time.perf_counter() - started) * 1000 - embed_ms,
        query_truncated=bool(first and first.query_truncated),
        query_chars_embedded=first.query_chars_embedded if first else 0,
        deep=info,
        query_embedding=first.query_embedding if first else {},
    )
