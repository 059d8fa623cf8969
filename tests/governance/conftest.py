import pytest


@pytest.fixture(autouse=True)
def _funnel_decides_alone(no_sampled_audit):
    """Governance tests study the funnel's own decision (tests/conftest.py); a test that
    studies sampled audit sets the rate itself."""
