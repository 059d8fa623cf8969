"""Attack fixtures of the security suite: memories owned by someone else, created through the
real services. The tenants' tokens (brand_a, brand_b, reviewer_a, operator_token) are
tests/conftest.py's."""

import pytest


@pytest.fixture(autouse=True)
def _empty_rate_limits(fresh_throttle):
    """Every attack starts with empty rate-limit buckets (tests/conftest.py)."""


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
