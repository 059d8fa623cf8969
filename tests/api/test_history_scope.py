"""History never crosses scopes: a brand_A token reading a memory whose chain once passed
through brand_B (a chain an old trusted import could make) sees none of brand_B's words."""

import pytest

from memories.storage import memory_create, memory_supersede

pytestmark = pytest.mark.django_db

SECRET_PLAN = "brand_B 私有出价策略：夜间出价系数 0.7，竞品词加价 30%"


@pytest.fixture
def crossed_chain(db):
    theirs = memory_create(content=SECRET_PLAN, layer="L2", advertiser="brand_B", embed=False)
    return memory_supersede(old=theirs, content="brand_A 夜间出价系数 0.8", advertiser="brand_A")


def test_a_tenants_history_leaves_out_another_tenants_versions(crossed_chain, brand_a, operator_token):
    body = brand_a.get(f"/memories/{crossed_chain.pk}").json()
    assert [v["content"] for v in body["history"]] == ["brand_A 夜间出价系数 0.8"]
    assert SECRET_PLAN not in str(body)
    source = brand_a.get(f"/memories/{crossed_chain.pk}/source")
    assert source.status_code == 200 and SECRET_PLAN not in source.content.decode()
    # The operator's view keeps the whole chain.
    assert [v["content"] for v in operator_token.get(f"/memories/{crossed_chain.pk}").json()["history"]][0] == SECRET_PLAN
