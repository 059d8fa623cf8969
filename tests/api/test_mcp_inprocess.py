"""`/mcp` through Django's test client, in-process: the same view and SDK bridge as under
runserver, inside the test's database transaction (raw JSON-RPC, as a client sends it)."""

import json

import pytest

pytestmark = pytest.mark.django_db

HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream"}


def rpc(client, token, method, params=None, *, ident=1):
    body = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}}
    return client.post(
        "/mcp", data=json.dumps(body, ensure_ascii=False), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}", **HEADERS
    )


def initialize(client, token):
    response = rpc(
        client, token, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    )
    assert response.status_code == 200, response.content
    return response.json()["result"]


def test_tools_answer_inside_the_test_transaction(client, make_token, make_memory):
    _, raw = make_token("mcp-a", ["brand_A"])
    make_memory("brand_A 医药OTC 感冒药搜索广告否定关键词加“处方药”", advertiser="brand_A")
    make_memory("brand_B 美妆 双11 预算翻倍", advertiser="brand_B")
    assert initialize(client, raw)["serverInfo"]["name"] == "lingix-memory"
    listed = rpc(client, raw, "tools/list", ident=2).json()["result"]["tools"]
    assert {t["name"] for t in listed} == {"search", "recall", "ingest", "trigger", "get", "source"}
    found = rpc(client, raw, "tools/call", {"name": "search", "arguments": {"query": "感冒药 否定关键词"}}, ident=3).json()
    results = json.loads(found["result"]["content"][0]["text"])["results"]
    assert results and {r["advertiser"] for r in results} <= {"brand_A", None}


def test_refusals_and_auth(client, make_token):
    _, raw = make_token("mcp-a2", ["brand_A"])
    response = rpc(client, raw, "tools/call", {"name": "get", "arguments": {"memory_id": 424242}})
    result = response.json()["result"]
    assert result["isError"] is True and "404:" in result["content"][0]["text"]
    bad = rpc(client, raw, "tools/call", {"name": "search", "arguments": {"query": "出价", "top_k": 500}}, ident=2).json()
    assert bad["result"]["isError"] is True
    refused = client.post("/mcp", data="{}", content_type="application/json", **HEADERS)
    assert refused.status_code == 401 and refused.json()["detail"].startswith("missing")


def test_no_event_stream_and_no_session_to_delete(client, make_token):
    _, raw = make_token("mcp-a3", ["brand_A"])
    for method in (client.get, client.delete):
        response = method("/mcp", HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_ACCEPT="text/event-stream")
        assert response.status_code == 405 and response["Allow"] == "POST" and "POST" in response.json()["detail"]
    broken = client.post("/mcp", data="不是JSON", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}", **HEADERS)
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700


def test_the_api_rate_limit_counts_mcp_calls_too(client, make_token, settings):
    settings.MEMORY_API_RATE = "2/min"
    _, raw = make_token("mcp-a4", ["brand_A"])
    assert initialize(client, raw)["serverInfo"]["name"] == "lingix-memory"
    assert client.get("/api/v1/status", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    limited = rpc(client, raw, "tools/list", ident=2)
    assert limited.status_code == 429 and "rate limit" in limited.json()["detail"] and int(limited["Retry-After"]) >= 1
