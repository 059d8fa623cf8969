"""POST /api/v1/search with "mode": fast (default) and deep, inside the token's scope."""

import pytest

pytestmark = pytest.mark.django_db


def test_default_mode_is_fast(demo_memories, brand_a):
    body = brand_a.post("/search", {"query": "出价"}).json()
    assert body["mode"] == "fast" and body["deep"] is None
    assert body["results"]


def test_deep_mode_reports_what_it_did_and_keeps_scope(demo_memories, brand_a):
    response = brand_a.post("/search", {"query": "冷启动期怎么调出价？", "mode": "deep", "top_k": 10})
    assert response.status_code == 200
    body = response.json()
    assert body["mode"] == "deep"
    assert body["deep"]["rewriter"] == "offline" and len(body["deep"]["subqueries"]) >= 2
    assert body["results"] and all(r["advertiser"] in ("brand_A", None) for r in body["results"])
    assert {"embed", "search"} <= set(body["timing_ms"])


def test_unknown_mode_is_a_clear_422(brand_a):
    response = brand_a.post("/search", {"query": "出价", "mode": "thorough"})
    assert response.status_code == 422
    assert "detail" in response.json()


def test_deep_mode_cannot_reach_another_advertiser(demo_memories, brand_a):
    response = brand_a.post("/search", {"query": "口红 ROI", "advertiser": "brand_B", "mode": "deep"})
    assert response.status_code == 403
