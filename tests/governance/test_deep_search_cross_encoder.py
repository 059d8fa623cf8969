"""Deep search with a cross-encoder behind a `/rerank` endpoint (MEMORY_RERANK_ENDPOINT): the
real client against the fake server on 127.0.0.1, through the real deep search. Its order
is blended with the fused one (0.6 × cross-encoder + 0.4 × fused on 0..1), the key goes
only into the Authorization header, and every failure answers fast and says why."""

import json
import logging

import pytest

from governance.models import Trace
from governance.search_hooks import CROSS_ENCODER_DOCUMENT_CHARS, CROSS_ENCODER_POOL, blend_order
from memories.search.deep import OFFLINE_HOOKS, Candidate, DeepHooks, deep_search, offline_rewrite
from memories.selectors import memory_search
from tests.fakes.openai_server import Recorded, chat, error, raw, rerank

pytestmark = pytest.mark.django_db

RERANK_KEY = "jina_test-rerankkey-fedcba9876543210"
QUERY = "千川 出价 ROI 怎么调"


@pytest.fixture
def cross_encoder(fake_openai, settings, env):
    settings.MEMORY_RERANK_ENDPOINT = f"{fake_openai.base_url}/rerank"
    settings.MEMORY_RERANK_MODEL = "fake-reranker"
    settings.MEMORY_DEEP_TIMEOUT = 0.5
    env(MEMORY_RERANK_API_KEY=RERANK_KEY)
    return fake_openai


def _is_rerank(request: Recorded) -> bool:
    return request.path.endswith("/rerank")


@pytest.fixture
def notes(make_memory):
    rows = [
        make_memory("巨量千川投放感冒灵颗粒时把出价从30元上调到36元，ROI稳定在2.1。", advertiser="brand_A"),
        make_memory("千川直播间冷启动期出价不宜频繁调整，ROI目标设为1.8。", advertiser="brand_A"),
        make_memory("千川 brand_A 店铺 ROI 出价：夜间时段出价下调15%，ROI回升到2.4。", advertiser="brand_A"),
        make_memory("抖音信息流日预算上限3万元，超出后边际ROI跌破1.5。", advertiser="brand_A"),
        make_memory("小红书聚光投放布洛芬缓释胶囊，晚上8点到11点转化率最高。", advertiser="brand_A"),
        make_memory("Qianchuan bid raised 10% on weekends; ROI held at 2.0 for brand_A.", advertiser="brand_A"),
        make_memory("巨量千川投放丝绒口红把出价上调10%，ROI 3.2。", advertiser="brand_B"),
    ]
    return rows


def _ids(response):
    return [r.memory.pk for r in response.results]


def _fused_pool(query, advertisers=("brand_A",)):
    """The candidates deep search hands its reranker, read through the real pipeline with a
    reranker that keeps them as they are (the offline rewrite: the one the cross-encoder runs behind)."""
    seen: list[list[Candidate]] = []

    def keep(_query, candidates):
        seen.append(list(candidates))
        return [c.memory_id for c in candidates]

    hooks = DeepHooks(name="spy", rewrite=offline_rewrite, rerank=keep)
    deep_search(query=query, advertisers=advertisers, top_k=50, record_access=False, hooks=hooks)
    return seen[0]


def _scores_by_text(scores: dict[str, float]):
    """A /rerank reply scoring each document by its text (0 for any other document)."""

    def reply(request: Recorded):
        documents = request.json["documents"]
        return rerank([(i, scores.get(doc, 0.0)) for i, doc in enumerate(documents)])

    return reply


def test_the_blend_of_cross_encoder_and_fused_scores_orders_the_results(cross_encoder, notes):
    pool = _fused_pool(QUERY)
    assert len(pool) >= 3 and pool[0].score > pool[-1].score
    low, high = pool[-1].score, pool[0].score
    unit = {c.memory_id: (c.score - low) / (high - low) for c in pool}
    first, last = pool[0], pool[-1]
    middle = next(c for c in pool[1:-1] if unit[c.memory_id] > 0.4)
    # Cross-encoder alone: last > middle > first. Fused alone: first > middle > last.
    # Blended: middle 0.6×0.95 + 0.4×u (u > 0.4: above 0.73), first 0.6×0.5 + 0.4 = 0.7,
    # last 0.6×1.0 + 0 = 0.6, every other memory at most 0.4.
    cross_encoder.route(_is_rerank, _scores_by_text({first.content: 0.5, middle.content: 0.95, last.content: 1.0}))

    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)

    assert response.deep["reranker"] == "cross-encoder" and response.deep["rewriter"] == "offline"
    assert "fallback" not in response.deep
    blended = [middle.memory_id, first.memory_id, last.memory_id]
    assert _ids(response) == blended
    assert blended != [c.memory_id for c in pool][:3]  # not the fused order
    assert blended != [last.memory_id, middle.memory_id, first.memory_id]  # not the cross-encoder's
    assert notes[6].pk not in _ids(response)  # brand_B stays out of scope
    (call,) = cross_encoder.requests_to("/rerank")
    body = call.json
    assert body["model"] == "fake-reranker" and body["query"] == QUERY
    assert body["documents"] == [c.content for c in pool] and body["top_n"] == len(pool)


def test_the_key_goes_in_the_authorization_header_and_nowhere_else(cross_encoder, notes, brand_a, caplog):
    caplog.set_level(logging.DEBUG)
    cross_encoder.route(_is_rerank, _scores_by_text({notes[2].content: 0.9}))
    body = brand_a.post("/search", {"query": QUERY, "mode": "deep", "top_k": 5}).json()
    assert body["deep"]["reranker"] == "cross-encoder" and "fallback" not in body["deep"]
    assert body["results"][0]["id"] == notes[2].pk
    calls = cross_encoder.requests_to("/rerank")

    cross_encoder.reset()
    cross_encoder.route(_is_rerank, error(500))
    failed = deep_search(query=QUERY, advertisers=("brand_A",), top_k=5, record_access=False)
    assert failed.deep["fallback"] == "unavailable"

    calls += cross_encoder.requests_to("/rerank")
    assert len(calls) == 2
    assert calls and all(c.headers["authorization"] == f"Bearer {RERANK_KEY}" for c in calls)
    assert not any(RERANK_KEY in c.text for c in calls)  # not in the body either
    assert RERANK_KEY not in json.dumps(body, ensure_ascii=False)
    assert RERANK_KEY not in json.dumps(failed.deep, ensure_ascii=False, default=str)
    assert RERANK_KEY not in caplog.text and "HTTP 500" in caplog.text
    traces = json.dumps(list(Trace.objects.values()), ensure_ascii=False, default=str)
    assert RERANK_KEY not in traces


def test_no_key_sends_no_authorization_header(cross_encoder, env, notes):
    env(MEMORY_RERANK_API_KEY=None)
    cross_encoder.route(_is_rerank, _scores_by_text({}))
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    assert "fallback" not in response.deep
    assert "authorization" not in cross_encoder.requests_to("/rerank")[0].headers


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (rerank([(0, 0.9)], delay=2.0), "timeout"),
        (error(500), "unavailable"),
        (error(401, "invalid api key"), "unavailable"),
        (raw("<html>502 Bad Gateway</html>"), "malformed"),
        (raw('{"results": [{"index": 0, "relevance_score": 0.9}'), "malformed"),  # cut off
        (rerank([(0, 0.9), (999, 0.8)]), "malformed"),  # an index outside the documents
        (rerank([(0, 0.9), (0, 0.8)]), "malformed"),  # the same index twice
        (raw('{"results": [{"index": 0, "relevance_score": "high"}]}'), "malformed"),
        (raw('{"results": [{"index": 0, "relevance_score": NaN}]}'), "malformed"),
        (raw('{"scores": [0.9, 0.1]}'), "malformed"),  # neither results nor data
        (rerank([]), "malformed"),
    ],
    ids=["timeout", "http-500", "http-401", "html", "cut-off", "out-of-range", "duplicate", "string-score", "nan", "no-list", "empty"],
)
def test_failures_fall_back_to_the_fast_result_and_say_why(cross_encoder, notes, reply, reason):
    cross_encoder.route(_is_rerank, reply)
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    fast = memory_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["fallback"] == reason
    assert response.deep["fallback_step"] == "rerank" and response.deep["reranker"] == "cross-encoder"
    assert _ids(response) == _ids(fast)
    # One attempt: a search does not wait through retries.
    assert len(cross_encoder.requests_to("/rerank")) == 1


def test_an_unreachable_endpoint_falls_back(settings, notes):
    settings.MEMORY_RERANK_ENDPOINT = "http://127.0.0.1:9/v1/rerank"  # discard port: nothing listens
    settings.MEMORY_DEEP_TIMEOUT = 0.5
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["fallback"] == "unavailable" and response.deep["fallback_step"] == "rerank"


def test_unset_endpoint_keeps_the_offline_pair(fake_openai, notes):
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=5, record_access=False)
    offline = deep_search(query=QUERY, advertisers=("brand_A",), top_k=5, record_access=False, hooks=OFFLINE_HOOKS)
    assert response.deep["reranker"] == "offline" and response.deep["rewriter"] == "offline"
    assert "fallback" not in response.deep
    assert _ids(response) == _ids(offline)
    assert fake_openai.requests == []


def test_voyage_shaped_answers_are_read(cross_encoder, notes):
    cross_encoder.route(_is_rerank, lambda req: rerank([(len(req.json["documents"]) - 1, 0.99)], key="data"))
    pool = _fused_pool(QUERY)
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    assert "fallback" not in response.deep
    # A server may answer fewer than top_n: the one it scored leads, the unscored keep
    # their fused order after it.
    assert _ids(response) == [pool[-1].memory_id, pool[0].memory_id, pool[1].memory_id]


def test_the_cross_encoder_reranks_behind_the_gateway_rewrite(cross_encoder, openai_gateway, notes):
    openai_gateway.route("Rewrite the query", chat({"queries": ["千川 出价 调整 ROI"]}))
    cross_encoder.route(_is_rerank, _scores_by_text({notes[1].content: 1.0}))
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["rewriter"] == "llm" and response.deep["reranker"] == "cross-encoder"
    assert "fallback" not in response.deep and _ids(response)[0] == notes[1].pk
    # The gateway rewrote; the cross-encoder, not the chat model, reranked.
    assert len(openai_gateway.requests_to("/chat/completions")) == 1
    assert len(cross_encoder.requests_to("/rerank")) == 1


def test_a_failing_gateway_rewrite_is_reported_as_the_rewrite_step(cross_encoder, openai_gateway, notes):
    openai_gateway.route("Rewrite the query", chat("not json"))
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["fallback"] == "malformed" and response.deep["fallback_step"] == "rewrite"
    assert cross_encoder.requests_to("/rerank") == []


def test_documents_are_bounded_in_count_and_length(cross_encoder, make_memory):
    # Every note longer than what is sent, and more of them than the pool holds.
    notes = [
        make_memory(f"千川第{i}号计划出价{30 + i}元，ROI {1 + i / 100:.2f}。" + "复盘：预算稳定，素材未换。" * 100, advertiser="brand_A")
        for i in range(CROSS_ENCODER_POOL + 10)
    ]
    cross_encoder.route(_is_rerank, _scores_by_text({}))
    response = deep_search(query="千川 出价 ROI", advertisers=("brand_A",), top_k=10, record_access=False)
    assert "fallback" not in response.deep
    documents = cross_encoder.requests_to("/rerank")[0].json["documents"]
    assert len(documents) == CROSS_ENCODER_POOL
    assert {len(d) for d in documents} == {CROSS_ENCODER_DOCUMENT_CHARS}
    assert set(documents) <= {n.content[:CROSS_ENCODER_DOCUMENT_CHARS] for n in notes}


def test_the_query_is_redacted_before_it_leaves(cross_encoder, notes):
    token = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
    cross_encoder.route(_is_rerank, _scores_by_text({}))
    deep_search(query=f"千川 出价 ROI 令牌 {token}", advertisers=("brand_A",), top_k=3, record_access=False)
    sent = cross_encoder.requests_to("/rerank")[0].json["query"]
    assert token not in sent and "千川" in sent


# -- the blend on its own -------------------------------------------------------------------


def _candidates(*scores):
    return [Candidate(memory_id=100 + i, content=f"第{i}条", score=s) for i, s in enumerate(scores)]


def test_blend_weights_and_fused_scale():
    candidates = _candidates(3.0, 2.0, 1.0)  # fused on 0..1: 1.0, 0.5, 0.0
    # 0.6×0.2+0.4 = 0.52; 0.6×0.5+0.2 = 0.5; 0.6×0.9 = 0.54
    assert blend_order(candidates, {0: 0.2, 1: 0.5, 2: 0.9}) == [102, 100, 101]


def test_blend_reads_logits_through_the_logistic_function():
    candidates = _candidates(1.0, 1.0, 1.0)  # one fused score: the cross-encoder decides
    assert blend_order(candidates, {0: -3.2, 1: 4.5, 2: 0.3}) == [101, 102, 100]
    # Three near-equal logits are near-equal probabilities (0.88, 0.89, 0.90), so the fused
    # order stands; a min-max cut would spread them over 0..1 and turn the order round.
    assert blend_order(_candidates(3.0, 2.0, 1.0), {0: 2.0, 1: 2.1, 2: 2.2}) == [100, 101, 102]


def test_blend_names_only_what_it_scored_and_ties_keep_the_fused_order():
    candidates = _candidates(2.0, 2.0, 1.0, 0.5)
    assert blend_order(candidates, {1: 0.7, 0: 0.7, 3: 0.1}) == [100, 101, 103]
    assert blend_order(candidates, {}) == [] and blend_order([], {0: 1.0}) == []


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://rerank.example.com/v1/rerank",  # the key would cross the network in clear text
        "ftp://127.0.0.1/v1/rerank",  # not HTTP: set in settings, it was never validated
    ],
)
def test_an_endpoint_the_key_may_not_go_to_leaves_the_offline_rerank(settings, env, notes, endpoint):
    from governance.search_hooks import cross_encoder_reranker

    settings.MEMORY_RERANK_ENDPOINT = endpoint
    env(MEMORY_RERANK_API_KEY=RERANK_KEY)
    assert cross_encoder_reranker() is None
    response = deep_search(query=QUERY, advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["reranker"] != "cross-encoder"
    assert response.results
