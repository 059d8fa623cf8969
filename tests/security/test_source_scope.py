"""GET /api/v1/memories/{id}/source shows only the conversation turns of events inside the
token's scope. A global memory is readable by every tenant; an event of brand_B that
points at it (what an operator's approval of a brand_B proposal against a global memory
leaves behind) keeps brand_B's conversation to brand_B and operators."""

import pytest

from governance.models import MemoryEvent

pytestmark = pytest.mark.django_db

BRAND_B_TURN = "brand_B 内部：双11 美妆 ROI 低于 1.8 就把出价下调 15%，别让竞品知道"


@pytest.fixture
def global_memory_from_brand_b(global_rule):
    MemoryEvent.objects.create(
        kind="ingest",
        source="user",
        actor="token:agent-b",
        advertiser="brand_B",
        memory=global_rule,
        action="UPDATE",
        session_id="sess-brand_B-双11",
        raw_text=BRAND_B_TURN,
        source_turns=[{"index": 3, "role": "user", "content": BRAND_B_TURN}],
    )
    return global_rule


def test_another_tenants_turns_behind_a_global_memory_stay_hidden(brand_a, global_memory_from_brand_b):
    response = brand_a.get(f"/memories/{global_memory_from_brand_b.pk}/source")
    assert response.status_code == 200
    body = response.json()
    assert BRAND_B_TURN not in response.content.decode()
    assert body["turns"] == [] and body["session_id"] is None


def test_the_owning_tenant_and_an_operator_still_see_them(brand_b, operator_token, global_memory_from_brand_b):
    for client in (brand_b, operator_token):
        body = client.get(f"/memories/{global_memory_from_brand_b.pk}/source").json()
        assert body["session_id"] == "sess-brand_B-双11" and body["turns"][0]["content"] == BRAND_B_TURN
