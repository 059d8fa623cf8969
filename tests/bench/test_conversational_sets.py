"""The Chinese conversational set, the three-set ablation and the side-by-side bench: the
set parses with every gold turn present, and the benches run end to end on tiny inputs.
(Figures are measured by running the benches, never asserted here.)"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.three_sets import locomo_categories, verdicts
from bench.vs_peers import bootstrap_ci
from bench.zh_chat import DATA, KINDS, load_chats
from tests.bench.test_benches import _run, _tiny_locomo

REPO = Path(__file__).resolve().parents[2]

TINY_CHAT = """# 小测试
= trip: 小王, 小李
## 2024-03-02 20:15
小王: 我五一想去大理玩，住洱海边的民宿。
小李: 好啊，记得带防晒霜，那边紫外线很强。
## 2024-05-08 19:05
小王: 回来了，在喜洲吃了破酥粑粑，太好吃了。
? 小王五一去哪里玩？ | single | 1:1
? 在喜洲吃了什么？ | single | 2:1
? 去大理要带什么？ | multi | 1:1 1:2
"""


def test_the_conversational_set_is_big_enough_and_every_gold_turn_exists():
    chats, queries = load_chats(DATA)
    assert len(chats) == 10 and len(queries) >= 150
    assert {q.kind for q in queries} == set(KINDS)
    keys = {t.key for turns in chats.values() for t in turns}
    assert all(set(q.gold) <= keys for q in queries)
    # Not an ad-ops set: no chat names an advertiser's platform.
    assert not any(word in t.text for turns in chats.values() for t in turns for word in ("千川", "出价", "ROI"))


def test_a_query_naming_a_missing_turn_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(TINY_CHAT + "? 不存在的证据 | single | 3:9\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 11"):
        load_chats(bad)
    done = subprocess.run(
        [sys.executable, "-m", "bench.zh_chat", "--json", "--data", str(bad)], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "line 11" in done.stderr


def test_zh_chat_bench_reports_each_mode_and_kind(tmp_path):
    data = tmp_path / "tiny.txt"
    data.write_text(TINY_CHAT, encoding="utf-8")

    doc = _run("bench.zh_chat", "--json", "--quiet", "--data", str(data), "--no-distractors", "--no-store-cache", tmp_path=tmp_path)

    assert (doc["chats"], doc["turns"], doc["queries"], doc["distractors"]) == (1, 3, 3, 0)
    for mode in ("keyword", "vector", "hybrid"):
        result = doc["results"]["default"][mode]
        assert set(result["by_kind"]) == {"single", "multi"}
        # Three turns: every gold turn is in the top 5 whatever the ranking.
        assert result["overall"]["recall@5"] == 1.0


def test_a_variant_is_kept_only_when_no_set_falls():
    table = {
        name: {
            "default": {"hybrid": {"recall@5": 0.8, "recall@10": 0.9}},
            "up": {"hybrid": {"recall@5": 0.81, "recall@10": 0.9}},
            "mixed": {"hybrid": {"recall@5": 0.9 if name == "zh_chat" else 0.79, "recall@10": 0.95}},
        }
        for name in ("locomo", "zh_adops", "zh_chat")
    }

    out = verdicts(table, ["default", "up", "mixed"])

    assert out["up"]["kept"] and out["up"]["falls"] == []
    assert not out["mixed"]["kept"] and out["mixed"]["falls"] == ["locomo recall@5", "zh_adops recall@5"]


def test_locomo_categories_are_kept_per_variant_and_mode():
    def modes(r10):
        row = {"1-multi-hop": {"recall@5": 0.2, "recall@10": r10, "hit@10": 0.5, "questions": 3}}
        return {mode: {"overall": {}, "by_category": row} for mode in ("keyword", "hybrid")}

    doc = {"variants": {"results": {"default": modes(0.4), "when": modes(0.5)}}}

    out = locomo_categories(doc, ["default", "when"])

    assert out["when"]["hybrid"] == {"1-multi-hop": {"recall@5": 0.2, "recall@10": 0.5}}
    assert set(out["default"]) == {"keyword", "hybrid"}
    # A run of the baseline alone keeps its modes at the top level.
    assert locomo_categories(modes(0.4), ["default"])["default"]["keyword"]["1-multi-hop"]["recall@10"] == 0.4


def test_bootstrap_interval_brackets_the_mean_and_excludes_zero_for_a_steady_gain():
    steady = bootstrap_ci([0.1] * 50 + [0.0] * 10, resamples=500)
    assert steady["ci95_low"] <= steady["mean"] <= steady["ci95_high"] and steady["ci95_low"] > 0
    noise = bootstrap_ci([1.0, -1.0] * 30, resamples=500)
    assert noise["ci95_low"] < 0 < noise["ci95_high"]


def test_vs_peers_ranks_every_system_on_the_same_turns(tmp_path):
    pytest.importorskip("lancedb", reason="lancedb is a bench extra")
    data = tmp_path / "tiny_locomo.json"
    data.write_text(json.dumps(_tiny_locomo()), encoding="utf-8")

    doc = _run("bench.vs_peers", "--json", "--quiet", "--data", str(data), "--bootstrap", "200", "--no-store-cache", tmp_path=tmp_path)

    assert doc["questions"] == 4 and doc["turns"] == 9
    assert set(doc["systems"]) == {"project", "bm25", "cosine", "lancedb_hybrid", "bm25_native", "lancedb_hybrid_native"}
    for name, row in doc["systems"].items():
        assert set(row["by_category"]) == {"1-multi-hop", "2-temporal", "4-single-hop"}
        # Five or fewer turns per conversation: every system with a vector side has every
        # gold turn in its top 10; BM25 alone cannot find a turn sharing no word ("dog").
        assert row["overall"]["recall@10"] == 1.0 if not name.startswith("bm25") else 0.0 < row["overall"]["recall@10"] < 1.0
    assert set(doc["differences"]) == {"bm25", "cosine", "lancedb_hybrid", "bm25_native", "lancedb_hybrid_native"}
    assert doc["differences"]["cosine"]["recall@10"] == {"mean": 0.0, "ci95_low": 0.0, "ci95_high": 0.0}
