"""The `/rerank` client on its own (judges.rerank): what it sends, which answers it reads,
and that a redirect does not carry the key elsewhere. Real HTTP to the fake server."""

import pytest

from judges.rerank import RerankClient, RerankFailure, RerankUnavailable, read_scores
from tests.fakes.openai_server import Reply, rerank

KEY = "sk-rerank-test-0123456789abcdef"


@pytest.fixture
def client(fake_openai):
    return RerankClient(endpoint=f"{fake_openai.base_url}/rerank", model="fake-reranker", timeout=0.5, api_key=KEY)


def test_sends_the_shared_request_shape_and_reads_scores_by_index(client, fake_openai):
    fake_openai.default = rerank([(1, 0.92), (0, 0.13)])
    documents = ["千川出价上调到36元，ROI 2.1。", "brand_A 日预算3万元。"]
    assert client.scores("千川 出价", documents) == {1: 0.92, 0: 0.13}
    (call,) = fake_openai.requests
    assert call.method == "POST" and call.path == "/v1/rerank"
    assert call.json == {"model": "fake-reranker", "query": "千川 出价", "documents": documents, "top_n": 2}
    assert call.headers["authorization"] == f"Bearer {KEY}"


def test_no_documents_no_call(client, fake_openai):
    assert client.scores("千川", []) == {}
    assert fake_openai.requests == []


def test_a_redirect_is_not_followed(client, fake_openai):
    fake_openai.route(lambda r: r.path.endswith("/rerank"), Reply(status=307, body=b"", headers={"location": "/elsewhere"}))
    with pytest.raises(RerankUnavailable) as caught:
        client.scores("千川", ["出价"])
    assert caught.value.reason is RerankFailure.UNAVAILABLE and caught.value.detail == "HTTP 307"
    assert [r.path for r in fake_openai.requests] == ["/v1/rerank"]


def test_the_repr_names_neither_key_nor_endpoint(client):
    assert KEY not in repr(client) and "127.0.0.1" not in repr(client)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"results": [{"index": 2, "relevance_score": 0.5}, {"index": 0, "relevance_score": 1}]}', {2: 0.5, 0: 1.0}),
        (b'{"object": "list", "data": [{"index": 1, "relevance_score": 0.25}]}', {1: 0.25}),
        (b'{"results": [{"index": 0, "relevance_score": -4.2, "document": {"text": "x"}}]}', {0: -4.2}),
    ],
)
def test_answers_read(body, expected):
    assert read_scores(body, 3) == expected


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"not json", "not JSON"),
        (b'{"results": [{"index": 3, "relevance_score": 0.5}]}', "index 3 out of range (3 documents)"),
        (b'{"results": [{"index": 1, "relevance_score": 0.5}, {"index": 1, "relevance_score": 0.4}]}', "index 1 scored twice"),
        (b'{"results": [{"index": -1, "relevance_score": 0.5}]}', "results.0.index"),
        (b'{"results": [{"index": "1", "relevance_score": 0.5}]}', "results.0.index"),
        (b'{"results": [{"index": 1.0, "relevance_score": 0.5}]}', "results.0.index"),
        (b'{"results": [{"index": 1, "relevance_score": "0.5"}]}', "results.0.relevance_score"),
        (b'{"results": [{"index": 1, "relevance_score": true}]}', "results.0.relevance_score"),
        (b'{"results": [{"index": 1, "relevance_score": Infinity}]}', "not JSON"),
        (b'{"results": [{"index": 1}]}', "results.0.relevance_score"),
        (b'{"results": []}', "no scores"),
        (b"[]", "Input should be"),
        (b'{"ranking": [1, 0]}', "neither `results` nor `data`"),
    ],
)
def test_malformed_answers_say_what_was_wrong_without_quoting_it(body, detail):
    with pytest.raises(RerankUnavailable) as caught:
        read_scores(body, 3)
    assert caught.value.reason is RerankFailure.MALFORMED
    assert detail in caught.value.detail


def test_only_http_endpoints_are_accepted():
    with pytest.raises(ValueError, match="http"):
        RerankClient(endpoint="file:///etc/passwd", model="m", timeout=1.0)
