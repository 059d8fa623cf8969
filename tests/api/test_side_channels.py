"""What one tenant can learn about or do to another through the API: /status counts stay
inside the token's scope, a token's expensive requests are bounded, and the query cut is
reported. Through the real NinjaAPI (Django's test client)."""

import threading

import pytest

from api.concurrency import TooManyConcurrent, in_flight, token_slot

LONG_QUERY = ("brand_A 医药OTC 双十一期间出价上调20%，ROI目标1.8，美妆CTR下降需复盘素材；" * 40)[:2000]


def _brand_b_writes(make_memory, n: int) -> None:
    for i in range(n):
        make_memory(f"brand_B 美妆新客出价上限 {40 + i} 元，ROI 低于 1.2 时降价", advertiser="brand_B", layer="L2")


def test_status_for_a_scoped_token_does_not_move_when_another_tenant_writes(demo_memories, brand_a, operator_token, make_memory):
    before_a, before_ops = brand_a.get("/status").json(), operator_token.get("/status").json()
    _brand_b_writes(make_memory, 3)
    after_a, after_ops = brand_a.get("/status").json(), operator_token.get("/status").json()
    assert {k: after_a[k] for k in ("memories", "by_status", "total", "embeddings")} == {
        k: before_a[k] for k in ("memories", "by_status", "total", "embeddings")
    }
    assert after_ops["total"] == before_ops["total"] + 3
    assert after_a["scope"] == {"advertisers": ["brand_A"], "global": True}
    assert after_ops["scope"] == {"advertisers": "all"}


def test_status_counts_the_tokens_own_advertiser_and_global_memories(db, brand_a, make_memory):
    make_memory("平台规定：医药OTC类目广告出价不得超过2元", advertiser=None, layer="L1")
    make_memory("brand_A 医药OTC 周末预算下调 30%", advertiser="brand_A", layer="L2")
    make_memory("brand_C 美妆 ROI 目标 2.0", advertiser="brand_C", layer="L2")
    body = brand_a.get("/status").json()
    assert body["total"] == 2 and body["memories"]["L1"] == 1 and body["memories"]["L2"] == 1
    assert body["embeddings"]["current"] + body["embeddings"]["missing_or_stale"] == 2


def test_the_cli_status_is_still_system_wide(db, make_memory):
    from governance.metrics.status import status_overview

    make_memory("brand_B 美妆 出价上限 45 元", advertiser="brand_B", layer="L2")
    make_memory("brand_A 医药OTC 出价上限 1.5 元", advertiser="brand_A", layer="L2")
    body = status_overview(advertisers=None)
    assert body["total"] == 2 and body["scope"] == {"advertisers": "all"}


@pytest.mark.parametrize(
    "path, body",
    [
        ("/search", {"query": "医药OTC 出价"}),
        ("/recall", {"query": "之前 brand_A 的出价策略是什么？"}),
        ("/ingest", {"text": "用户纠正：brand_A 医药OTC 出价不要超过1.5元"}),
        ("/trigger", {"event_type": "strategy_execution", "summary": "brand_A 美妆 ROI 复盘", "data": {"ROI": 1.8}}),
    ],
)
def test_a_token_with_its_slots_busy_gets_429_and_others_do_not(demo_memories, make_token, api_client, settings, path, body):
    settings.MEMORY_API_CONCURRENCY = 2
    busy_token, busy_raw = make_token("busy", ["brand_A"])
    _, calm_raw = make_token("calm", ["brand_A"])
    with token_slot(busy_token), token_slot(busy_token):
        refused = api_client(busy_raw).post(path, body)
        assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
        assert "in progress" in refused.json()["detail"]
        assert api_client(calm_raw).post(path, body).status_code == 200
        # Cheap reads are not bounded.
        assert api_client(busy_raw).get("/status").status_code == 200
    assert in_flight(busy_token) == 0
    assert api_client(busy_raw).post(path, body).status_code == 200


def test_slots_are_released_when_the_request_fails(demo_memories, make_token, api_client, settings):
    settings.MEMORY_API_CONCURRENCY = 1
    token, raw = make_token("clumsy", ["brand_A"])
    client = api_client(raw)
    assert client.post("/trigger", {"event_type": "strategy_execution", "advertiser": "brand_B", "summary": "x"}).status_code == 403
    assert client.post("/search", {"query": "出价", "advertiser": "brand_B"}).status_code == 403
    assert in_flight(token) == 0
    assert client.post("/search", {"query": "出价"}).status_code == 200


def test_slot_counting_is_exact_across_threads(db, make_token, settings):
    settings.MEMORY_API_CONCURRENCY = 3
    token, _ = make_token("threads", ["brand_A"])
    entered, refused, release = [], [], threading.Event()

    def worker():
        try:
            with token_slot(token):
                entered.append(1)
                release.wait(10)
        except TooManyConcurrent:
            refused.append(1)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    while len(entered) + len(refused) < 8:
        threading.Event().wait(0.01)
    assert len(entered) == 3 and len(refused) == 5
    release.set()
    for t in threads:
        t.join()
    assert in_flight(token) == 0


@pytest.mark.parametrize("path", ["/search", "/recall"])
def test_a_long_query_is_cut_and_the_cut_is_reported(demo_memories, brand_a, path):
    body = brand_a.post(path, {"query": LONG_QUERY, "force": True} if path == "/recall" else {"query": LONG_QUERY}).json()
    assert body["query_truncated"] is True
    assert 0 < body["query_chars_embedded"] < 2000
    assert LONG_QUERY.startswith(LONG_QUERY[: body["query_chars_embedded"]])


def test_a_short_query_is_not_cut(demo_memories, brand_a):
    body = brand_a.post("/search", {"query": "美妆 ROI"}).json()
    assert body["query_truncated"] is False and body["query_chars_embedded"] == len("美妆 ROI")


def test_recall_of_a_chinese_conversation_reports_the_cut_of_its_query(demo_memories, brand_a):
    messages = [
        {"role": "assistant", "content": "上周 brand_A 医药OTC 出价已按 1.5 元执行。"},
        {"role": "user", "content": "之前定的出价策略是什么？" + "补充背景：双十一大促，美妆和医药OTC类目流量激增。" * 30},
    ]
    body = brand_a.post("/recall", {"messages": messages}).json()
    assert body["retrieved"] is True and body["query_truncated"] is True
    assert body["query_chars_embedded"] < len(body["query"])
