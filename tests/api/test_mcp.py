"""`/mcp` driven by the official MCP SDK's own client (streamable HTTP + ClientSession)
against a real `runserver` on 127.0.0.1 (fresh SQLite, real migrations, demo data, tokens
made by the CLI). Each exchange is printed, so `pytest -s` shows the transcript."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.plugin.server import LingixServer

AGENT_TOOLS = {"search", "recall", "ingest", "trigger", "get", "source"}
REVIEW_TOOLS = {"review_list", "review_decide"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LingixServer(workdir=tmp_path_factory.mktemp("mcp")) as running:
        yield running


def show(label: str, value: Any) -> None:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)
    print(f"\n>>> {label}\n{text[:1500]}")


def payload(result) -> Any:
    text = "".join(block.text for block in result.content if getattr(block, "type", "") == "text")
    try:
        return json.loads(text)
    except ValueError:
        return text


def session_run(server: LingixServer, token: str, body) -> Any:
    """Open an MCP session with the SDK's client as `token`, run `body(session)`, return its result."""

    async def main():
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http, streamable_http_client(f"{server.base_url}/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                show("initialize", {"server": init.server_info.name, "protocol": init.protocol_version})
                return await body(session)

    return anyio.run(main)


def test_tools_search_ingest_with_traces_and_scope(server):
    async def body(session: ClientSession):
        tools = {tool.name for tool in (await session.list_tools()).tools}
        show("tools/list (brand_A agent token)", sorted(tools))

        found = await session.call_tool("search", {"query": "医药OTC 冷启动 出价", "top_k": 3})
        show(
            "tools/call search {query: 医药OTC 冷启动 出价, top_k: 3}",
            [
                f"#{r['id']} {r['layer']} {r['advertiser'] or 'global'} score={r['score']} {r['content'][:48]}"
                for r in payload(found)["results"]
            ],
        )

        decision = await session.call_tool(
            "ingest",
            {
                "messages": [
                    {"role": "assistant", "content": "建议brand_A 感冒药搜索广告把“处方药”加进否定关键词，减少无效点击"},
                    {"role": "user", "content": "好的，就按这个来"},
                ],
                "explain": True,
            },
        )
        written = payload(decision)
        show(
            "tools/call ingest {messages: assistant suggestion + user confirmation, explain}",
            {
                **{k: v for k, v in written.items() if k != "stages"},
                "stages": [f"{st['stage']}: {st['decision']} — {'; '.join(st['reasons'])[:110]}" for st in written["stages"]],
            },
        )

        source = await session.call_tool("source", {"memory_id": payload(decision)["memory_id"]})
        show("tools/call source", payload(source))

        refused = await session.call_tool("search", {"query": "美妆 双11 预算", "advertiser": "brand_B"})
        show(
            "tools/call search {advertiser: brand_B} (outside the token's scope)",
            {"isError": refused.is_error, "content": payload(refused)},
        )

        hidden = await session.call_tool("review_list", {})
        show("tools/call review_list (agent token)", {"isError": hidden.is_error, "content": payload(hidden)})
        return tools, payload(found), payload(decision), payload(source), refused, hidden

    tools, found, decision, source, refused, hidden = session_run(server, server.tokens["plugin-a"], body)
    assert tools == AGENT_TOOLS
    assert found["results"] and all(r["advertiser"] in (None, "brand_A") for r in found["results"])
    assert decision["action"] == "WRITE" and decision["layer"] == "L2", decision
    stages = [stage["stage"] for stage in decision["stages"]]
    assert {"provenance", "classify", "guard_rules", "judge", "conflict"} <= set(stages), stages
    provenance = next(stage for stage in decision["stages"] if stage["stage"] == "provenance")
    assert provenance["scores"]["attribution"] == "user_confirmed"
    assert [t["role"] for t in source["turns"]] == ["assistant", "user"] and source["event_id"] == decision["event_id"]
    assert refused.is_error and "403: this token may not access advertiser 'brand_B'" in payload(refused) and "brand_B" in payload(refused)
    assert hidden.is_error and "Unknown tool: review_list" in payload(hidden)


def test_review_tools_for_a_review_token_and_funnel_refusals(server):
    async def propose(session: ClientSession):
        conflict = await session.call_tool(
            "ingest",
            {
                "messages": [
                    {"role": "assistant", "content": "建议brand_A 医药OTC冷启动期间出价上浮20%，先观察3天ROI"},
                    {"role": "user", "content": "可以，就按这个执行"},
                ]
            },
        )
        show("tools/call ingest as brand_A {contradicts a stored memory}", payload(conflict))
        return payload(conflict)

    conflict = session_run(server, server.tokens["plugin-a"], propose)

    async def body(session: ClientSession):
        tools = {tool.name for tool in (await session.list_tools()).tools}
        show("tools/list (operator token with --can-review)", sorted(tools))
        suggestion = await session.call_tool(
            "ingest", {"text": "助手建议：美妆线双11期间出价提高30%", "source": "assistant", "advertiser": "brand_B"}
        )
        show("tools/call ingest {unconfirmed assistant suggestion}", payload(suggestion))
        rule = await session.call_tool(
            "trigger",
            {
                "event_type": "rule_update",
                "summary": "平台规定：医药OTC素材不得出现“根治”",
                "source": "system",
                "data": {"authority": "平台规定", "scope": "医药OTC"},
            },
        )
        show("tools/call trigger {source: system, without the grant}", {"isError": rule.is_error, "content": payload(rule)})
        queue = await session.call_tool("review_list", {"limit": 5})
        show("tools/call review_list", payload(queue))
        item_id = conflict["review_item_id"]
        decided = await session.call_tool("review_decide", {"item_id": item_id, "decision": "reject", "note": "冷启动仍按上浮10%执行"})
        show(f"tools/call review_decide {{item_id: {item_id}, reject, note}}", payload(decided))
        bad = await session.call_tool("review_decide", {"item_id": 999999, "decision": "approve"})
        show("tools/call review_decide {item_id: 999999}", {"isError": bad.is_error, "content": payload(bad)})
        return tools, payload(suggestion), rule, payload(queue), bad, payload(decided)

    tools, suggestion, rule, queue, bad, decided = session_run(server, server.tokens["plugin-ops"], body)
    assert tools == AGENT_TOOLS | REVIEW_TOOLS
    assert suggestion["action"] == "REJECT" and suggestion["memory_id"] is None
    assert rule.is_error and "403:" in payload(rule) and "--trusted-sources" in payload(rule)
    assert conflict["action"] == "PENDING_REVIEW" and any("contradicts" in r for r in conflict["reasons"])
    assert conflict["review_item_id"] in {item["id"] for item in queue["items"]}
    assert decided["action"] == "REJECT" and any("冷启动仍按上浮10%执行" in r for r in decided["reasons"])
    assert bad.is_error and "404:" in payload(bad)


def test_the_endpoint_needs_a_valid_token(server):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"{server.base_url}/mcp",
        data=b"{}",
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer lgx_00000000_nope"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    show("POST /mcp with an unknown token", {"status": refused.value.code, "body": json.loads(refused.value.read())})
    assert refused.value.code == 401 and refused.value.headers["WWW-Authenticate"].startswith("Bearer")
