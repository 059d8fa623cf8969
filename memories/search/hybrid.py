"""Hybrid ranking: structured filter → keyword + vector candidates → fusion →
importance/recency adjustment → MMR diversity → top k. Every hit explains its score."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from memories.embeddings.query_cache import embed_query_cached
from memories.search.backends import get_search_backend
from memories.search.entities import entity_candidates
from memories.search.filters import SearchFilter
from memories.search.query import PreparedQuery, QueryLanguage, prepare_query

if TYPE_CHECKING:
    import numpy as np

Mode = Literal["hybrid", "keyword", "vector"]


@dataclass(frozen=True)
class RankingConfig:
    candidates: int = 60
    # "weighted": normalised scores mixed with the weights below; "rrf": reciprocal-rank
    # fusion (weights still scale each list's 1/(rrf_k + rank) contribution).
    fusion: str = "weighted"
    rrf_k: int = 60
    # Keyword-leaning in both languages, measured on LoCoMo (English) and on the Chinese
    # ad-ops set (bench.zh_adops), each candidate scored by both arms: 0.4/0.6 beat 0.3/0.7
    # and 0.5/0.5 on both (docs/benchmarks/retrieval-quality.md).
    vector_weight: float = 0.4
    keyword_weight: float = 0.6
    # Importance scales the fused score by up to ±importance_weight/2 around importance 5.
    importance_weight: float = 0.1
    # Half-life for the recency factor, in days; applied gently so old rules still win on relevance.
    recency_half_life_days: float = 60.0
    recency_weight: float = 0.05
    mmr_lambda: float = 0.85
    # Above this cosine a candidate counts as a restatement and is never returned. Off
    # (above 1): the write funnel already rejects duplicates, so near-identical stored notes
    # are different facts (the same tactic on two channels); cutting them cost recall on
    # both benchmarks.
    mmr_duplicate_cosine: float = 1.01
    # Query handling (memories.search.query): the keyword arm reads the question without
    # its question words; a Chinese query may fuse with its own weights (None: the above).
    strip_questions: bool = True
    zh_vector_weight: float | None = None
    zh_keyword_weight: float | None = None

    # Query-adaptive fusion (weights_for_query), each None = off: the keyword weight is 1
    # minus the one given. Chinese that names no ad-ops term (everyday talk) leans on the
    # vector arm: its bigrams (时候, 多少, 预算) match notes about something else. 0.6 in
    # bench.three_sets: Chinese chat set R@5/R@10 0.892/0.953 -> 0.898/0.965, ad-ops set
    # 0.863/0.958 -> 0.867/0.962 (its queries that name no ad-ops term), LoCoMo unchanged
    # (0.5 gave the same recall, 0.7 lost the ad-ops gain). A list of terms rather than a
    # question (terms_vector_weight) lost ad-ops recall@10 at 0.3 and 0.5: off.
    zh_chat_vector_weight: float | None = 0.6
    terms_vector_weight: float | None = None
    # English questions about what would or might be (LoCoMo open-domain) and questions
    # that ask when (temporal), each off: in bench.three_sets on all ten LoCoMo
    # conversations, hypothetical 0.5 moved open-domain R@10 0.398 -> 0.404 but R@5 0.293 ->
    # 0.284 (0.6 and 0.8 lost R@10); when 0.3 and 0.5 lost temporal R@10 (0.768 -> 0.760,
    # 0.762). The Chinese sets do not move (the shapes are English).
    hypothetical_vector_weight: float | None = None
    when_vector_weight: float | None = None

    def weights_for(self, language: str) -> tuple[float, float]:
        """(vector, keyword) fusion weights for a query in `language`."""
        if language == QueryLanguage.CHINESE and self.zh_vector_weight is not None and self.zh_keyword_weight is not None:
            return self.zh_vector_weight, self.zh_keyword_weight
        return self.vector_weight, self.keyword_weight

    def weights_for_query(self, prepared: PreparedQuery) -> tuple[float, float]:
        """(vector, keyword) fusion weights for this query: its shape first, then its language."""
        if not prepared.question and self.terms_vector_weight is not None:
            return self.terms_vector_weight, 1.0 - self.terms_vector_weight
        if prepared.hypothetical and self.hypothetical_vector_weight is not None:
            return self.hypothetical_vector_weight, 1.0 - self.hypothetical_vector_weight
        if prepared.asks_when and self.when_vector_weight is not None:
            return self.when_vector_weight, 1.0 - self.when_vector_weight
        if prepared.language == QueryLanguage.CHINESE and not prepared.domain_terms and self.zh_chat_vector_weight is not None:
            return self.zh_chat_vector_weight, 1.0 - self.zh_chat_vector_weight
        return self.weights_for(prepared.language)

    # Memories linked to an entity the query names (memories.search.entities); 0 turns the arm off.
    entity_weight: float = 0.15
    # Score every candidate in both arms. The cosine of a keyword-only candidate is always
    # known; without this a vector or entity candidate outside the keyword top `candidates`
    # counted as no keyword match at all, though it may match the query's rarest word.
    complete_keyword_scores: bool = True


DEFAULT_RANKING = RankingConfig()


@dataclass
class SearchHit:
    memory_id: int
    score: float
    explain: dict[str, float] = field(default_factory=dict)


@dataclass
class SearchOutcome:
    hits: list[SearchHit]
    embed_ms: float = 0.0
    search_ms: float = 0.0
    # What the embedder read of the query: it is cut to the query token budget.
    query_truncated: bool = False
    query_chars_embedded: int = 0
    # The query embedding's cost: ms, cached, tokens, truncated, chars (empty when none was needed).
    query_embedding: dict = field(default_factory=dict)


def _minmax(values: dict[int, float]) -> dict[int, float]:
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    if high - low < 1e-9:
        return {k: 1.0 for k in values}
    return {k: (v - low) / (high - low) for k, v in values.items()}


def hybrid_search(
    query: str,
    search_filter: SearchFilter,
    *,
    top_k: int = 10,
    mode: Mode = "hybrid",
    config: RankingConfig = DEFAULT_RANKING,
    metadata: dict[int, tuple[float, float]] | None = None,
) -> SearchOutcome:
    """Rank memories for `query`. `metadata` maps id → (importance, created timestamp);
    when absent the adjustment step loads it."""
    import numpy as np

    embed_ms = 0.0
    started = time.perf_counter()
    keyword: dict[int, float] = {}
    query_vector = None
    fitted = None
    backend = get_search_backend()
    prepared = prepare_query(query, strip_questions=config.strip_questions)
    vector_weight, keyword_weight = config.weights_for_query(prepared)
    vector_result: Callable[[], list[tuple[int, float]]] = list  # no vector arm: no hits
    if mode in ("hybrid", "vector") and query.strip():
        t0 = time.perf_counter()
        fitted = embed_query_cached(prepared.vector_text)
        query_vector = fitted.vector
        embed_ms = (time.perf_counter() - t0) * 1000
        if mode == "hybrid":
            # Runs beside the keyword arm where the backend can (SQLite).
            vector_result = backend.start_vector_candidates(query_vector, search_filter, config.candidates)
        else:
            vector_result = functools.partial(list, backend.vector_candidates(query_vector, search_filter, config.candidates))
    vector_hits = functools.cache(lambda: dict(vector_result()))
    cut = {"query_truncated": fitted.truncated, "query_chars_embedded": fitted.chars, "query_embedding": fitted.cost()} if fitted else {}
    entity_hits = functools.cache(
        lambda: entity_candidates(query, search_filter, config.candidates)[0] if mode == "hybrid" and config.entity_weight > 0 else {}
    )
    if mode in ("hybrid", "keyword"):
        # The other arms' candidates get their keyword scores too (complete_keyword_scores).
        # The keyword arm asks for them once its own rows are all read: the vector arm has
        # had the whole bm25 statement to finish, and the entity arm's Python did not
        # contend with it for the GIL.
        also = (lambda: [*vector_hits(), *entity_hits()]) if mode == "hybrid" and config.complete_keyword_scores else None
        keyword = dict(backend.keyword_candidates(prepared.keyword_text, search_filter, config.candidates, also=also))
    vector, entity = vector_hits(), entity_hits()
    candidate_ids = list(dict.fromkeys([*vector, *keyword, *entity]))
    if not candidate_ids:
        return SearchOutcome(hits=[], embed_ms=embed_ms, search_ms=(time.perf_counter() - started) * 1000 - embed_ms, **cut)

    vectors = backend.vectors_for(candidate_ids) if query_vector is not None else {}
    with_vector = [mid for mid in candidate_ids if mid in vectors]
    cosine = (
        dict(zip(with_vector, (np.vstack([vectors[mid] for mid in with_vector]) @ query_vector).tolist(), strict=True))
        if with_vector
        else {}
    )
    top_keyword = max(keyword.values()) if keyword else 1.0
    keyword_norm = {k: v / top_keyword for k, v in keyword.items()} if top_keyword > 0 else {}
    cosine_norm = _minmax(cosine)
    if config.fusion == "rrf":
        keyword_rank = {mid: r for r, mid in enumerate(keyword)}
        vector_rank = {mid: r for r, mid in enumerate(sorted(cosine, key=cosine.__getitem__, reverse=True))}

    if metadata is None:
        metadata = _load_metadata(candidate_ids)
    now = search_filter.now.timestamp()
    ranked: list[tuple[float, int, float, float]] = []
    for mid in candidate_ids:
        if mid not in metadata:
            continue
        if mode == "keyword":
            fused = keyword_norm.get(mid, 0.0)
        elif mode == "vector":
            # Normalised like the hybrid's: e5 cosines sit in a band a few hundredths wide,
            # which the importance and recency factors below would otherwise outweigh.
            fused = cosine_norm.get(mid, 0.0)
        elif config.fusion == "rrf":
            fused = sum(
                weight / (config.rrf_k + ranks[mid] + 1)
                for weight, ranks in ((vector_weight, vector_rank), (keyword_weight, keyword_rank))
                if mid in ranks
            ) * (config.rrf_k + 1)
        else:
            fused = vector_weight * cosine_norm.get(mid, 0.0) + keyword_weight * keyword_norm.get(mid, 0.0)
        if mid in entity:
            fused += config.entity_weight * entity[mid]
        importance, created = metadata[mid]
        age_days = max(0.0, (now - created) / 86400.0)
        recency = math.exp(-math.log(2) * age_days / config.recency_half_life_days)
        importance_factor = 1 + config.importance_weight * (importance - 5) / 5
        adjusted = fused * importance_factor * (1 - config.recency_weight + config.recency_weight * recency)
        ranked.append((adjusted, mid, fused, recency))
    ranked.sort(key=lambda row: row[0], reverse=True)
    # Only the MMR pool can be returned, so only it gets SearchHit objects and explanations.
    scored = [
        SearchHit(
            memory_id=mid,
            score=adjusted,
            explain={
                "vector": round(cosine.get(mid, 0.0), 4),
                "vector_norm": round(cosine_norm.get(mid, 0.0), 4),
                "keyword": round(keyword.get(mid, 0.0), 4),
                "keyword_norm": round(keyword_norm.get(mid, 0.0), 4),
                "entity": round(entity.get(mid, 0.0), 4),
                "fused": round(fused, 4),
                "importance": metadata[mid][0],
                "recency": round(recency, 4),
            },
        )
        for adjusted, mid, fused, recency in ranked[: _pool_size(top_k)]
    ]
    hits = _mmr(scored, vectors, top_k, config)
    return SearchOutcome(hits=hits, embed_ms=embed_ms, search_ms=(time.perf_counter() - started) * 1000 - embed_ms, **cut)


def _pool_size(top_k: int) -> int:
    return max(top_k * 3, 30)


def _mmr(scored: list[SearchHit], vectors: dict[int, np.ndarray], top_k: int, config: RankingConfig) -> list[SearchHit]:
    """Maximal marginal relevance: trade a little relevance for not repeating the same fact.
    Greedy: each step takes the best of λ·score − (1−λ)·(max cosine to what is already
    chosen)·score; a near-exact restatement (cosine ≥ mmr_duplicate_cosine) is never taken."""
    import numpy as np

    if not vectors or len(scored) <= 1:
        return scored[:top_k]
    pool = scored[: _pool_size(top_k)]
    dim = len(next(iter(vectors.values())))
    has = np.array([hit.memory_id in vectors for hit in pool])
    matrix = np.zeros((len(pool), dim), dtype=np.float32)
    for i, hit in enumerate(pool):
        if has[i]:
            matrix[i] = vectors[hit.memory_id]
    similarity = matrix @ matrix.T
    score = np.array([hit.score for hit in pool], dtype=np.float64)
    closest = np.full(len(pool), -np.inf)  # max cosine to a chosen memory that has a vector
    taken = np.zeros(len(pool), dtype=bool)
    chosen: list[SearchHit] = []
    while len(chosen) < min(top_k, len(pool)):
        sim = np.where(has & np.isfinite(closest), closest, 0.0)
        value = config.mmr_lambda * score - (1 - config.mmr_lambda) * sim * score
        value[taken | (sim >= config.mmr_duplicate_cosine)] = -np.inf
        best = int(np.argmax(value))
        if value[best] == -np.inf:
            break
        pool[best].explain["mmr_max_similarity"] = round(float(sim[best]), 4)
        chosen.append(pool[best])
        taken[best] = True
        if has[best]:
            closest = np.maximum(closest, similarity[best])
    return chosen


def _load_metadata(ids: list[int]) -> dict[int, tuple[float, float]]:
    # SQLite answers from the in-process index (no query); PostgreSQL reads the rows.
    return get_search_backend().metadata_for(ids)
