"""Deep search with a gateway: the real `openai` client against the fake OpenAI-compatible
server rewrites and reranks; malformed answers, timeouts and HTTP errors fall back to the
fast result and say why."""

import json

import pytest

from memories.search.deep import deep_search
from memories.selectors import memory_search
from tests.fakes.openai_server import chat, error

pytestmark = pytest.mark.django_db

REWRITE = "Rewrite the query"
RERANK = "You rank stored memories"


@pytest.fixture
def notes(make_memory):
    return [
        make_memory("巨量千川投放感冒灵颗粒时把竞价从30元上调到36元，ROI稳定在2.1。", advertiser="brand_A"),
        make_memory("感冒灵颗粒在抖音信息流的日预算上限定为3万元。", advertiser="brand_A"),
        make_memory("小红书聚光投放布洛芬缓释胶囊，晚上8点到11点转化率最高。", advertiser="brand_A"),
        make_memory("巨量千川投放丝绒口红把竞价上调10%。", advertiser="brand_B"),
    ]


def _ids(response):
    return [r.memory.pk for r in response.results]


def test_gateway_rewrites_and_reranks(openai_gateway, notes):
    budget = notes[1]
    openai_gateway.route(REWRITE, chat({"queries": ["感冒灵 日预算 上限", "感冒灵 budget cap"]}))
    openai_gateway.route(RERANK, chat({"order": [budget.pk, notes[0].pk]}))
    response = deep_search(query="感冒灵每天最多花多少钱", advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["rewriter"] == "llm" and "fallback" not in response.deep
    assert response.deep["subqueries"][1:] == ["感冒灵 日预算 上限", "感冒灵 budget cap"]
    assert _ids(response)[0] == budget.pk
    assert notes[3].pk not in _ids(response)
    calls = openai_gateway.requests_to("/chat/completions")
    assert len(calls) == 2
    rerank_prompt = calls[1].json["messages"][1]["content"]
    # Memory text reaches the model only inside the untrusted block, and only in scope.
    assert "<untrusted_data>" in rerank_prompt and "丝绒口红" not in rerank_prompt
    assert calls[0].json["response_format"] == {"type": "json_object"}


def test_reranker_ids_outside_the_candidates_are_ignored(openai_gateway, notes):
    openai_gateway.route(REWRITE, chat({"queries": ["千川 竞价"]}))
    openai_gateway.route(RERANK, chat({"order": [notes[3].pk, 424242]}))
    response = deep_search(query="千川 出价", advertisers=("brand_A",), top_k=5, record_access=False)
    assert "fallback" not in response.deep
    assert notes[3].pk not in _ids(response) and 424242 not in _ids(response)
    assert response.results


@pytest.mark.parametrize(
    ("rewrite_reply", "rerank_reply", "reason"),
    [
        (chat("not json at all"), None, "malformed"),
        (chat({"queries": "感冒灵"}), None, "malformed"),  # valid JSON, wrong shape
        (chat({"queries": ["感冒灵 预算"]}), chat({"order": "first"}), "malformed"),
        (chat({"queries": ["感冒灵 预算"]}, delay=2.0), None, "timeout"),
        (error(503), None, "unavailable"),
    ],
)
def test_failures_fall_back_to_the_fast_result(openai_gateway, settings, notes, rewrite_reply, rerank_reply, reason):
    settings.MEMORY_DEEP_TIMEOUT = 0.4
    openai_gateway.route(REWRITE, rewrite_reply)
    if rerank_reply is not None:
        openai_gateway.route(RERANK, rerank_reply)
    response = deep_search(query="感冒灵 预算", advertisers=("brand_A",), top_k=3, record_access=False)
    fast = memory_search(query="感冒灵 预算", advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["fallback"] == reason
    assert _ids(response) == _ids(fast)
    # One attempt per call: a search does not wait through retries.
    assert len(openai_gateway.requests_to("/chat/completions")) == (2 if rerank_reply is not None else 1)


def test_key_never_reaches_the_response(openai_gateway, notes):
    openai_gateway.route(REWRITE, chat("broken"))
    response = deep_search(query="感冒灵", advertisers=("brand_A",), top_k=3, record_access=False)
    assert "sk-test" not in json.dumps(response.deep, ensure_ascii=False)


def test_offline_provider_uses_the_offline_pair(settings, notes):
    settings.MEMORY_LLM_PROVIDER = "offline"
    response = deep_search(query="感冒灵 千川 bid", advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["rewriter"] == "offline"


def test_the_model_reads_only_the_best_thirty_and_the_rest_keep_their_order(openai_gateway, make_memory):
    from governance.search_hooks import MODEL_RERANK_POOL

    plans = [make_memory(f"感冒灵颗粒第{i}号计划：千川竞价{30 + i}元，日预算{1000 + i * 10}元。", advertiser="brand_A") for i in range(45)]
    openai_gateway.route(REWRITE, chat({"queries": ["感冒灵 竞价 预算"]}))
    openai_gateway.route(RERANK, chat({"order": [plans[44].pk]}))
    response = deep_search(query="感冒灵 千川 竞价 预算", advertisers=("brand_A",), top_k=40, record_access=False)
    assert "fallback" not in response.deep and len(response.results) == 40
    prompt = openai_gateway.requests_to("/chat/completions")[1].json["messages"][1]["content"]
    sent = json.loads(prompt.split("<untrusted_data>")[1].split("</untrusted_data>")[0])
    assert len(sent["candidates"]) == MODEL_RERANK_POOL
    # The one the model put first leads only if it was among what it was shown.
    shown = {c["id"] for c in sent["candidates"]}
    assert (_ids(response)[0] == plans[44].pk) == (plans[44].pk in shown)
