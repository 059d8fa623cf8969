"""Nearby memories for a candidate: its own layer and the L1 rules that bind it, in its
advertiser scope (plus global), active and unexpired, ranked by cosine over the configured
embedder's vectors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet
from django.utils import timezone

from governance.funnel.relation import against_rule, relate, rule_in_scope, with_second_opinion
from governance.funnel.types import Candidate
from governance.knowledge.entities.selectors import subject_identity
from lingix_config import config
from memories.constants import Layer, Status
from memories.embeddings import Embedder, get_embedder
from memories.embeddings.passage_cache import embed_passages_cached
from memories.embeddings.store import embedding_text, memory_store_vectors, memory_vectors, stale_embedding_q, with_vectors
from memories.hashing import content_hash
from memories.models import Memory
from memories.search.backends import get_search_backend
from memories.search.filters import SearchFilter
from textrules.claims import Claim, Wording, extract_claim

if TYPE_CHECKING:
    import numpy as np

STALE_LIMIT = 200
# More matches than this for an indexed condition (most often: rows without the current vector
# after an embedder change, before embed-backfill) are read in scope, newest first, in one query.
STALE_SCAN = 2000
KEEP = 8


def _layers_compared(c: Candidate) -> tuple[str, ...]:
    """The proposal's own layer and the core rules, which bind every layer: a statement that
    reverses an L1 rule ("夜间22点后也可以投" under "不投夜间22点后") goes to a person
    (conflict.py), whichever layer it would be written in. Only a contradiction of a rule
    from another layer counts (relation.py: against_rule)."""
    return tuple(dict.fromkeys([str(c.layer), str(Layer.L1)]))


def _scope_qs(c: Candidate) -> QuerySet[Memory]:
    now = timezone.now()
    qs = Memory.objects.filter(status=Status.ACTIVE, layer__in=_layers_compared(c))
    qs = qs.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
    if c.advertiser:
        qs = qs.filter(Q(advertiser=c.advertiser) | Q(advertiser__isnull=True))
    else:
        qs = qs.filter(advertiser__isnull=True)
    return qs


def _newest_in_scope(scope: QuerySet[Memory], narrowed: Q, limit: int) -> list[int]:
    """Ids of the newest in-scope rows matching `narrowed`, a condition with an index of its
    own (rows without the current vector, rows with one text). That index is asked alone,
    without the scope or an order, and the few rows it gives are sorted here: joined with the
    scope, or ordered by date, the planner walks the scope index or the dates instead and
    reads every row of the scope on every decision. Past STALE_SCAN matches (an embedder
    change that embed-backfill has not caught up with) one query in scope does it."""
    matching = list(Memory.objects.filter(narrowed).order_by().values_list("id", flat=True)[:STALE_SCAN])
    if len(matching) >= STALE_SCAN:
        return list(scope.filter(narrowed).order_by("-created_at", "-id").values_list("id", flat=True)[:limit])
    found = scope.filter(pk__in=matching).order_by().values_list("id", "created_at")
    return [pk for pk, _ in sorted(found, key=lambda row: (row[1], row[0]), reverse=True)[:limit]]


def candidate_claim(c: Candidate) -> Claim:
    """The candidate's claim, read once: its text, the scope the credential gave, its data."""
    if c.claim is None:
        c.claim = extract_claim(c.content, advertiser=c.advertiser, data=c.data)
    return c.claim


# A claim stored before its quoted words were read has no "terms": read it again from the text,
# or a rule's forbidden word would never clash with a statement that allows it.
CURRENT_CLAIM_KEY = "terms"


def memory_claim(memory: Memory) -> Claim:
    """A stored memory's claim: the one written with it, else read from its text (rows
    written before claims existed, or before the claim's newest part was read)."""
    if memory.claim and CURRENT_CLAIM_KEY in memory.claim:
        return Claim.from_dict(memory.claim)
    return extract_claim(memory.content, advertiser=memory.advertiser, data=memory.data)


def relation(
    c: Candidate, memory: Memory, cosine: float, same_hash: bool, *, exception_to_global: bool = False
) -> dict[str, object] | None:
    """duplicate / contradiction / refinement / compatible / ambiguous with the part of
    the claim that decided, or None when the two are unrelated (governance.funnel.relation).
    An L1 rule beside a proposal of another layer counts only as a contradiction (against_rule)."""
    new, old = candidate_claim(c), memory_claim(memory)
    if memory.layer != c.layer:
        old = rule_in_scope(old, new)
    wording = Wording(memory.content, c.content)
    found = relate(
        new,
        old,
        cosine=cosine,
        same_text=same_hash,
        wording=wording,
        related_cosine=config().memory_related_cosine,
        exception_to_global=exception_to_global,
        identity=subject_identity(old_text=memory.content, new_text=c.content, advertiser=c.advertiser),
    )
    if found is not None and not same_hash and Layer.L1 not in (memory.layer, c.layer):
        found = with_second_opinion(found, new, old, wording=wording, cosine=cosine)
    if memory.layer != c.layer:
        found = against_rule(found, rule=old, rule_text=memory.content, other=new, other_text=c.content)
    return found.as_dict() if found else None


def _vectors_of(rows: list[Memory], embedder: Embedder) -> np.ndarray:
    """Stored vectors of `rows`; rows not embedded yet (the on-commit job has not run, or
    failed) are embedded now and the vectors kept, so the next candidate does not pay."""
    import numpy as np

    vectors = np.zeros((len(rows), embedder.dimension), dtype=np.float32)
    missing = []
    for i, (m, stored) in enumerate(zip(rows, memory_vectors(rows), strict=True)):
        if stored is not None and m.embedding_model == embedder.model_name and m.embedding_dim == embedder.dimension:
            vectors[i] = stored
        else:
            missing.append(i)
    if missing:
        fresh = embed_passages_cached([embedding_text(rows[i]) for i in missing])
        vectors[missing] = fresh
        memory_store_vectors([rows[i] for i in missing], fresh, embedder.model_name)
    return vectors


_FIELDS = (
    "id",
    "content",
    "claim",
    "data",
    "category",
    "embedding",
    "embedding_model",
    "embedding_dim",
    "content_hash",
    "layer",
    "advertiser",
    "source_attribution",
    "grounding",
    "version",
    "status",
    "expires_at",
)


def find_related(c: Candidate, *, refresh: bool = False) -> list[dict]:
    """[{memory, cosine, relation, signal, detail}] best first; cached on the candidate. The conflict
    stage refreshes it inside the write transaction, where the answer is final.

    Neighbours come from the search backend's vector candidates (the same ones search uses), plus
    any in-scope rows that have no current vector yet and any exact-text match."""
    import numpy as np

    if c.related is not None and not refresh:
        return c.related
    embedder = get_embedder()
    scope = _scope_qs(c)
    new_hash = content_hash(c.content)
    # The probe is embedded only when there is something to compare it with; once it is, an
    # empty scope simply reads no rows below.
    if c.probe is None and not scope.exists():
        c.related = []
        return []
    stale_ids = _newest_in_scope(scope, stale_embedding_q(), STALE_LIMIT)
    same_text = _newest_in_scope(scope, Q(content_hash=new_hash), KEEP)
    if c.probe is None:
        c.probe = embed_passages_cached([embedding_text(Memory(content=c.content, category=c.category or c.trigger_type))])[0]
    # Each layer compared gets its own candidates and its own KEEP places, so the rules never
    # crowd the proposal's own layer out (nor the other way round).
    hits = []
    for layer in _layers_compared(c):
        search_filter = SearchFilter(
            advertisers=(c.advertiser,) if c.advertiser else (), include_global=True, layers=(layer,), now=timezone.now()
        )
        hits += [memory_id for memory_id, _ in get_search_backend().vector_candidates(c.probe, search_filter, KEEP * 2)]
    ids = list(dict.fromkeys([*same_text, *hits, *stale_ids]))
    # Re-read the rows (the index may lag a change made in this very transaction), their vectors with them.
    rows = list(with_vectors(scope.filter(pk__in=ids).only(*_FIELDS)))
    if not rows:
        c.related = []
        return []
    cosines = _vectors_of(rows, embedder) @ c.probe
    kept: dict[str, int] = {}
    found = []
    for i in np.argsort(-cosines):
        m, cos = rows[int(i)], float(cosines[int(i)])
        if kept.get(m.layer, 0) >= KEEP:
            continue
        kept[m.layer] = kept.get(m.layer, 0) + 1
        # An L1 rule binds every advertiser; elsewhere one advertiser may differ from the global memory.
        exception = bool(c.advertiser) and m.advertiser is None and m.layer != Layer.L1
        rel = relation(c, m, cos, m.content_hash == new_hash, exception_to_global=exception)
        if rel:
            found.append({"memory": m, "cosine": round(cos, 4), **rel})
    c.related = found
    return found
