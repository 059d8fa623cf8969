"""Tool arguments reach /mcp through the SDK's own JSON parsing, not the API's strict parser;
they must be refused exactly where POST /api/v1/trigger and /ingest refuse them, with
nothing stored. Through Django's test client and the real SDK bridge."""

import json

import pytest

from governance.models import MemoryEvent
from tests.api.test_mcp_inprocess import HEADERS, initialize, rpc

pytestmark = pytest.mark.django_db


def _tool(client, raw, name, arguments):
    response = rpc(client, raw, "tools/call", {"name": name, "arguments": arguments}, ident=7)
    assert response.status_code == 200, response.content[:300]
    return response.json()["result"]


@pytest.mark.parametrize(
    "data, problem",
    [
        ({"ROI": 2**70, "渠道": "抖音信息流"}, "64-bit"),
        ({"出价": json.loads("[" * 40 + "]" * 40)}, "nesting"),
    ],
)
def test_trigger_data_the_api_refuses_is_refused_over_mcp_too(client, make_token, brand_a, data, problem):
    _, raw = make_token("mcp-hostile", ["brand_A"])
    initialize(client, raw)
    body = {"event_type": "strategy_execution", "summary": "brand_A 医药OTC 双11 冷启动 ROI 复盘", "data": data}
    assert brand_a.post("/trigger", body).status_code == 422
    result = _tool(client, raw, "trigger", body)
    assert result["isError"] is True
    assert "422:" in result["content"][0]["text"] and problem in result["content"][0]["text"]
    assert not MemoryEvent.objects.exists()


def test_a_nan_in_trigger_data_is_a_422_tool_error_not_a_database_failure(client, make_token):
    _, raw = make_token("mcp-nan", ["brand_A"])
    initialize(client, raw)
    body = (
        '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"trigger","arguments":'
        '{"event_type":"strategy_execution","summary":"brand_A 美妆 ROI 复盘","data":{"ROI":NaN}}}}'
    )
    response = client.post("/mcp", data=body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}", **HEADERS)
    result = response.json()["result"]
    assert result["isError"] is True and "422:" in result["content"][0]["text"]
    assert "non-finite" in result["content"][0]["text"]
    assert not MemoryEvent.objects.exists()
