"""Organised knowledge over the API: the category trees by token scope, the kind and
category search filters, and /recall spending its budget on one-line abstracts first."""

from __future__ import annotations

import pytest


def _scopes(body) -> set:
    return {tree["scope"] for tree in body["trees"]}


def _walk(nodes):
    for node in nodes:
        yield node
        yield from _walk(node["children"])


@pytest.mark.django_db
def test_categories_are_scoped_by_token(demo_memories, brand_a, make_token, api_client):
    body = brand_a.get("/categories").json()
    assert _scopes(body) == {"global", "brand_A"}
    brand_tree = next(t for t in body["trees"] if t["scope"] == "brand_A")
    paths = {node["path"] for node in _walk(brand_tree["categories"])}
    assert "医药OTC › 冷启动 › 出价" in paths
    root = next(n for n in brand_tree["categories"] if n["path"] == "医药OTC")
    assert root["memory_count"] == root["semantic_count"] + root["episodic_count"] >= sum(c["memory_count"] for c in root["children"]) > 0
    assert "条有效记忆" in root["summary"]
    # Another advertiser's tree is never shown, and asking for it is refused.
    assert brand_a.get("/categories", advertiser="brand_B").status_code == 403
    assert _scopes(brand_a.get("/categories", advertiser="brand_A").json()) == {"global", "brand_A"}
    _, raw = make_token("ops-all", all_advertisers=True)
    assert {"brand_A", "brand_B", "brand_C", "global"} <= _scopes(api_client(raw).get("/categories").json())
    assert api_client(None).get("/categories").status_code == 401


@pytest.mark.django_db
def test_search_takes_kind_and_category(demo_memories, brand_a):
    body = brand_a.post("/search", {"query": "出价", "kind": "semantic", "top_k": 20}).json()
    assert body["results"] and {r["kind"] for r in body["results"]} == {"semantic"}
    assert all(r["category_path"] and r["abstract"] for r in body["results"])
    assert {r["advertiser"] for r in body["results"]} <= {"brand_A", None}
    cold = brand_a.post("/search", {"query": "出价", "category": "医药OTC/冷启动", "top_k": 20}).json()["results"]
    assert cold and all(r["category_path"].startswith("医药OTC › 冷启动") for r in cold)
    bad = brand_a.post("/search", {"query": "出价", "kind": "factual"})
    assert bad.status_code == 422 and "detail" in bad.json()


@pytest.mark.django_db
def test_recall_shows_more_memories_within_the_same_budget(demo_memories, brand_a):
    query = {"query": "医药OTC冷启动出价和预算怎么安排？", "budget_tokens": 300, "top_k": 20}
    tiered = brand_a.post("/recall", query).json()
    full = brand_a.post("/recall", {**query, "detail": "full"}).json()
    assert tiered["tokens"] <= 300 and full["tokens"] <= 300
    assert len(tiered["memories"]) > len(full["memories"]) >= 1
    details = [m["detail"] for m in tiered["memories"]]
    assert set(details) <= {"line", "paragraph", "full"} and "line" in details
    assert tiered["chosen"]["ranked"] >= len(tiered["memories"])
    assert sum(tiered["chosen"][d] for d in ("line", "paragraph", "full")) == len(tiered["memories"])
    # The best-ranked memory is the one shown with the most detail.
    assert tiered["memories"][0]["detail"] in {"paragraph", "full"}
    assert {m["detail"] for m in full["memories"]} == {"full"}
