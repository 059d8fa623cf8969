"""Nearby memories for a candidate: same layer, same advertiser scope (plus global),
active and unexpired, ranked by cosine over the configured embedder's vectors."""
from __future__ import annotations

import re

import numpy as np
from django.db.models import Q
from django.utils import timezone

from governance.funnel import signals as s
from governance.funnel.types import Candidate
from governance.providers.config import duplicate_cosine, related_cosine
from memories.constants import Status
from memories.embeddings import get_embedder
from memories.hashing import content_hash
from memories.models import Memory
from memories.services import embedding_text

SCAN_LIMIT = 2000
KEEP = 5


def _scope(c: Candidate):
    now = timezone.now()
    qs = Memory.objects.filter(status=Status.ACTIVE, layer=c.layer).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
    if c.advertiser:
        qs = qs.filter(Q(advertiser=c.advertiser) | Q(advertiser__isnull=True))
    else:
        qs = qs.filter(advertiser__isnull=True)
    return qs.order_by("-created_at")[:SCAN_LIMIT]


MIN_OVERLAP = 0.5
_DIGITS = re.compile(r"[0-9.%％]+")


def _grams(text: str) -> set[str]:
    text = _DIGITS.sub(" ", text.lower())
    words = set(re.findall(r"[a-z_]+", text))
    cjk = re.sub(r"[^\u4e00-\u9fff]", "", text)
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def lexical_overlap(a: str, b: str) -> float:
    """Share of the smaller text's words/bigrams (numbers removed) found in the other.
    Embeddings of any two ad-ops sentences sit close together; a contradiction must
    also be about the same words."""
    ga, gb = _grams(a), _grams(b)
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / min(len(ga), len(gb))


def relation(new_text: str, old_text: str, cosine: float, same_hash: bool) -> str:
    """duplicate / contradiction / related / '' — numbers and negation decide between
    'says the same' and 'says the opposite', since embeddings barely tell them apart."""
    if same_hash:
        return "duplicate"
    overlap = lexical_overlap(new_text, old_text)
    new_nums, old_nums = sorted(set(s.numbers(new_text))), sorted(set(s.numbers(old_text)))
    numbers_differ = bool(new_nums) and bool(old_nums) and new_nums != old_nums
    polarity_differs = (s.negation_count(new_text) > 0) != (s.negation_count(old_text) > 0)
    if cosine >= related_cosine() and overlap >= MIN_OVERLAP and (numbers_differ or polarity_differs):
        return "contradiction"
    if cosine >= duplicate_cosine():
        return "duplicate"
    if cosine >= related_cosine():
        return "related"
    return ""


def find_related(c: Candidate, *, refresh: bool = False) -> list[dict]:
    """[{memory, cosine, relation}] best first; cached on the candidate. The conflict
    stage refreshes it inside the write transaction, where the answer is final."""
    if c.related is not None and not refresh:
        return c.related
    rows = list(_scope(c).only("id", "content", "category", "embedding", "embedding_model", "embedding_dim", "content_hash",
                               "layer", "advertiser", "source_attribution", "grounding", "version"))
    if not rows:
        c.related = []
        return []
    embedder = get_embedder()
    if c.probe is None:
        c.probe = embedder.embed_passages([embedding_text(Memory(content=c.content, category=c.category))])[0]
    query = c.probe
    vectors = np.zeros((len(rows), embedder.dimension), dtype=np.float32)
    missing = []
    for i, m in enumerate(rows):
        if m.embedding is not None and m.embedding_model == embedder.model_name and m.embedding_dim == embedder.dimension:
            vectors[i] = np.frombuffer(bytes(m.embedding), dtype=np.float32)
        else:
            missing.append(i)
    if missing:
        # Not embedded yet (the on-commit job has not run, or failed): embed them now and
        # keep the vectors, so the next candidate in this scope does not pay again.
        fresh = embedder.embed_passages([embedding_text(rows[i]) for i in missing])
        for k, i in enumerate(missing):
            vectors[i] = fresh[k]
            Memory.objects.filter(pk=rows[i].pk).update(
                embedding=np.asarray(fresh[k], dtype=np.float32).tobytes(), embedding_model=embedder.model_name, embedding_dim=embedder.dimension
            )
    cosines = vectors @ query
    order = np.argsort(-cosines)[:KEEP]
    new_hash = content_hash(c.content)
    found = []
    for i in order:
        m, cos = rows[int(i)], float(cosines[int(i)])
        rel = relation(c.content, m.content, cos, m.content_hash == new_hash)
        if rel:
            found.append({"memory": m, "cosine": round(cos, 4), "relation": rel})
    c.related = found
    return found
