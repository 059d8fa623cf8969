"""/mcp behind an IPv6 address: the Host header `[::1]:8000` is a valid host, not a 500.
Through Django's test client and the real SDK bridge."""

import pytest

from tests.api.test_mcp_inprocess import initialize, rpc

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("host", ["[::1]:8000", "[::1]", "lingix.example:8443"])
def test_an_ipv6_or_ported_host_header_is_served(client, make_token, settings, host):
    settings.ALLOWED_HOSTS = ["*"]
    _, raw = make_token("mcp-ipv6", ["brand_A"])
    client.defaults["HTTP_HOST"] = host
    assert initialize(client, raw)["serverInfo"]["name"] == "lingix-memory"
    found = rpc(client, raw, "tools/call", {"name": "search", "arguments": {"query": "医药OTC 冷启动 出价"}}, ident=2)
    assert found.status_code == 200 and found.json()["result"]["isError"] is False
