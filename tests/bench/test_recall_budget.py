"""bench.recall_budget runs end to end on a tiny LoCoMo file and prints both renderers'
rows from the same search results (figures come from running it, not from here)."""

import json

from tests.bench.test_benches import _run, _tiny_locomo


def test_recall_budget_bench_compares_both_renderers(tmp_path):
    data = tmp_path / "tiny_locomo.json"
    data.write_text(json.dumps(_tiny_locomo()), encoding="utf-8")

    doc = _run("bench.recall_budget", "--json", "--data", str(data), "--quiet", "--budget", "120", tmp_path=tmp_path)

    assert doc["questions"] == 4 and doc["budget_tokens"] == 120
    assert set(doc["results"]) == {"full (before)", "tiered (after)"}
    for row in doc["results"].values():
        assert 0.0 <= row["recall"] <= doc["recall_of_ranked_hits"] <= 1.0
        assert 0 < row["mean_tokens"] <= 120 and row["distinct_memories_per_block"] >= 1
    assert doc["distinct_memories_ratio_after_over_before"] > 0
