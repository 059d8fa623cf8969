"""GET /api/v1/suggestions: open suggestions inside the token's scope, as {"items": […]}."""

from __future__ import annotations

import pytest

from governance.intake.services import event_trigger
from lingix_site.demo import demo_load_once
from memories.models import Memory

DOUBLE_11 = {
    "event": "双11预热",
    "category": "美妆",
    "signal": "CPM较上周上涨30%",
    "impact": "出价节奏按大促模板调整",
    "time_window": "2026-11-01 至 2026-11-11",
}


@pytest.fixture
def demo(db):
    assert demo_load_once()["loaded"]


def trigger(event_type, **kw):
    return event_trigger(event_type=event_type, **kw)


def promotion_template() -> Memory:
    return Memory.objects.get(layer="L4", content__startswith="大促投放模板")


def test_api_lists_suggestions_inside_the_token_scope(demo, make_token, api_client):
    trigger(
        "environment_change",
        advertiser="brand_B",
        source="tool",
        summary="双11预热期开始，美妆CPM较上周上涨30%，需要调整出价节奏",
        data=DOUBLE_11,
    )
    _, raw_a = make_token("agent-a", ["brand_A"])
    _, raw_b = make_token("agent-b", ["brand_B"])
    as_a, as_b = api_client(raw_a), api_client(raw_b)

    body_b = as_b.get("/suggestions", advertiser="brand_B").json()
    assert any(item["advertiser"] == "brand_B" and item["topic"] == "大促" for item in body_b["items"])
    template = promotion_template().pk
    assert any(t["id"] == template for item in body_b["items"] for t in item["templates"])

    body_a = as_a.get("/suggestions").json()
    assert body_a["items"] and all(item["advertiser"] in (None, "brand_A") for item in body_a["items"])
    for item in body_a["items"]:
        assert all(p["advertiser"] in (None, "brand_A") for p in item["strategies"] + item["templates"])

    refused = as_a.get("/suggestions", advertiser="brand_B")
    assert refused.status_code == 403 and "detail" in refused.json()
    assert as_a.get("/suggestions", advertiser="bad value").status_code == 422
    assert api_client(None).get("/suggestions").status_code == 401
