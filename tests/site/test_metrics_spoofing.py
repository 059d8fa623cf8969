"""/metrics decides on the connection's address (REMOTE_ADDR) alone: headers a client
writes itself never make it loopback. Through Django's test client and the real URLconf."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

OUTSIDE = {"REMOTE_ADDR": "203.0.113.9"}


@pytest.mark.parametrize("header", ["HTTP_X_FORWARDED_FOR", "HTTP_X_REAL_IP", "HTTP_FORWARDED", "HTTP_X_CLIENT_IP"])
def test_a_forwarding_header_claiming_loopback_is_ignored(env, header):
    env(LINGIX_METRICS_ALLOW=None, LINGIX_METRICS_TOKEN=None)
    value = "for=127.0.0.1" if header == "HTTP_FORWARDED" else "127.0.0.1"
    response = Client().get("/metrics", **OUTSIDE, **{header: value})
    assert response.status_code == 403 and "loopback" in response.json()["detail"]


def test_an_empty_token_setting_never_matches_an_empty_bearer(env):
    env(LINGIX_METRICS_TOKEN="")
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer ", **OUTSIDE).status_code == 403


def test_loopback_scrapes_by_default(env):
    env(LINGIX_METRICS_ALLOW=None)
    response = Client().get("/metrics", REMOTE_ADDR="127.0.0.1")
    assert response.status_code == 200 and b"lingix_" in response.content
