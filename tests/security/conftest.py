"""Attack fixtures shared by the security suite: one token per advertiser, an operator,
and memories owned by someone else, all created through the real services."""

import pytest

from tests.api.conftest import ApiClient, _fresh_throttle, make_token  # noqa: F401  (fixtures)


@pytest.fixture
def brand_a(make_token):  # noqa: F811
    _, raw = make_token("agent-a", ["brand_A"])
    return ApiClient(raw)


@pytest.fixture
def brand_b(make_token):  # noqa: F811
    _, raw = make_token("agent-b", ["brand_B"])
    return ApiClient(raw)


@pytest.fixture
def operator(make_token):  # noqa: F811
    _, raw = make_token("ops", all_advertisers=True, can_review=True)
    return ApiClient(raw)


@pytest.fixture
def reviewer_a(make_token):  # noqa: F811
    """A brand_A token that may decide reviews, but only inside brand_A."""
    _, raw = make_token("review-a", ["brand_A"], can_review=True)
    return ApiClient(raw)


@pytest.fixture
def global_rule(make_memory):
    """A global core rule every advertiser reads."""
    return make_memory(
        "医药OTC 类目全平台规则：处方药不得投放信息流广告，出价上限 3 元",
        layer="L1",
        advertiser=None,
        source="human",
        business_line="医药OTC",
        category="合规",
    )


@pytest.fixture
def brand_b_memory(make_memory):
    return make_memory(
        "brand_B 美妆 双十一 ROI 低于 1.8 时把出价下调 15%，晚间 20-23 点加价",
        layer="L2",
        advertiser="brand_B",
        source="user",
        business_line="美妆",
        category="出价",
    )
