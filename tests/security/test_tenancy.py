"""A brand_A token against brand_B's data, on every read surface: nothing of brand_B's
is returned, counted or decidable, and an explicit foreign advertiser is a 403."""

import json

import pytest

from governance.models import ReviewItem

SECRET_PLAN = "brand_B 美妆 双十一 ROI 低于 1.8 时把出价下调 15%"


def _holds_nothing_of_b(response) -> None:
    body = response.json()
    rows = body.get("results") or body.get("memories") or body.get("history") or []
    assert all(row.get("advertiser") != "brand_B" for row in rows), rows
    # The answer echoes the caller's own query (now as UTF-8 text); only the rest can leak.
    text = json.dumps({k: v for k, v in body.items() if k != "query"}, ensure_ascii=False)
    assert SECRET_PLAN not in text and "ROI 低于 1.8" not in text and "晚间 20-23" not in text, text[:400]


QUERIES = ["双十一 美妆 ROI 出价下调", "brand_B 出价", "晚间 20-23 点加价 beauty ROI 1.8"]


@pytest.mark.parametrize("query", QUERIES)
def test_search_never_returns_another_advertisers_memory(brand_a, brand_b_memory, query):
    response = brand_a.post("/search", {"query": query, "top_k": 50})
    assert response.status_code == 200
    _holds_nothing_of_b(response)


@pytest.mark.parametrize("query", QUERIES)
def test_recall_never_returns_another_advertisers_memory(brand_a, brand_b_memory, query):
    response = brand_a.post("/recall", {"query": query, "force": True})
    assert response.status_code == 200, response.content
    _holds_nothing_of_b(response)


@pytest.mark.parametrize(
    "path, body",
    [
        ("/search", {"query": "美妆 出价", "advertiser": "brand_B"}),
        ("/recall", {"query": "美妆 出价", "advertiser": "brand_B"}),
        ("/ingest", {"text": "brand_B 美妆 出价上限改为 9 元", "advertiser": "brand_B"}),
        ("/trigger", {"event_type": "strategy_execution", "summary": "brand_B 出价下调 20%", "advertiser": "brand_B"}),
        ("/ingest", {"text": "全平台 美妆 出价上限 9 元", "advertiser": None}),
    ],
)
def test_naming_a_foreign_advertiser_or_global_is_403(brand_b, brand_a, brand_b_memory, path, body):
    if body.get("advertiser", "x") is None:
        body = {k: v for k, v in body.items() if k != "advertiser"}
        # A one-advertiser token's write without an advertiser lands on its own advertiser.
        response = brand_a.post(path, body)
        assert response.status_code == 200
        assert response.json()["action"] != "WRITE" or _memory_advertiser(response.json()["memory_id"]) == "brand_A"
        return
    response = brand_a.post(path, body)
    assert response.status_code == 403, response.content
    assert "brand_B" in response.json()["detail"]


def _memory_advertiser(memory_id):
    from memories.models import Memory

    return Memory.objects.get(pk=memory_id).advertiser


def test_a_foreign_memory_by_id_is_404_like_a_missing_one(brand_a, brand_b_memory):
    response = brand_a.get(f"/memories/{brand_b_memory.pk}")
    missing = brand_a.get(f"/memories/{brand_b_memory.pk + 1000}")
    assert response.status_code == missing.status_code == 404
    assert set(response.json()) == {"detail"}
    _holds_nothing_of_b(response)


def test_a_foreign_memorys_source_is_not_served(brand_a, brand_b_memory):
    response = brand_a.get(f"/memories/{brand_b_memory.pk}/source")
    assert response.status_code == 404
    _holds_nothing_of_b(response)


def test_the_history_of_a_foreign_memory_is_not_served(brand_a, brand_b, brand_b_memory):
    ingest = brand_b.post("/ingest", {"text": "用户纠正：brand_B 美妆 双十一 ROI 低于 1.6 时才把出价下调 10%", "source": "user"})
    assert ingest.status_code == 200
    for memory_id in {brand_b_memory.pk, ingest.json().get("memory_id") or brand_b_memory.pk}:
        response = brand_a.get(f"/memories/{memory_id}")
        assert response.status_code == 404
        _holds_nothing_of_b(response)


@pytest.fixture
def brand_b_review_item(brand_b):
    text = "用户纠正：brand_B 美妆 直播间出价上限改为 6 元，以后都按这个执行"
    response = brand_b.post("/ingest", {"text": text, "source": "user", "layer": "L1"})
    assert response.json()["action"] == "PENDING_REVIEW", response.content
    return ReviewItem.objects.get(pk=response.json()["review_item_id"])


def test_review_list_shows_no_foreign_item(reviewer_a, brand_b_review_item):
    response = reviewer_a.get("/review")
    assert response.status_code == 200
    assert brand_b_review_item.pk not in [item["id"] for item in response.json()["items"]]
    assert "直播间出价上限改为" not in response.content.decode()


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_foreign_review_item_cannot_be_decided(reviewer_a, brand_b_review_item, verb):
    response = reviewer_a.post(f"/review/{brand_b_review_item.pk}/{verb}", {"note": "brand_A 代为处理"})
    assert response.status_code == 404, response.content
    brand_b_review_item.refresh_from_db()
    assert brand_b_review_item.status == "open"


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_token_without_review_rights_cannot_decide_its_own_items(brand_a, verb):
    text = "用户纠正：brand_A 医药OTC 处方药词包出价上限改为 1 元，以后都按这个执行"
    item = brand_a.post("/ingest", {"text": text, "source": "user", "layer": "L1"}).json()
    assert item["action"] == "PENDING_REVIEW"
    response = brand_a.post(f"/review/{item['review_item_id']}/{verb}", {"note": "自己批准"})
    assert response.status_code == 403
    assert ReviewItem.objects.get(pk=item["review_item_id"]).status == "open"


def test_status_counts_do_not_move_when_another_tenant_writes(brand_a, brand_b, global_rule):
    before = brand_a.get("/status").json()
    for i in range(3):
        brand_b.post("/ingest", {"text": f"用户纠正：brand_B 美妆 第{i + 1}档出价上限 {i + 4} 元", "source": "user"})
    after = brand_a.get("/status").json()
    assert after["memories"] == before["memories"] and after["by_status"] == before["by_status"]
    assert after["scope"] == {"advertisers": ["brand_A"], "global": True}
