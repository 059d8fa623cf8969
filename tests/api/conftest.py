import pytest


@pytest.fixture(autouse=True)
def _empty_rate_limits(fresh_throttle):
    """Every API test starts with empty rate-limit buckets (tests/conftest.py)."""
