"""Oversized and slow queries: a query is cut to what the embedder reads and the cut is
reported; past the documented limits the request is a 4xx, never a slow 200 or a 5xx."""

import pytest

LONG_ZH = "双十一大促期间 brand_A 美妆和医药OTC 的出价策略、ROI 目标与预算分配复盘，" * 60
LONG_EN = ("brand_A beauty ROI bid cap review for the Singles' Day campaign, " * 40)[:2000]
LONG_MIXED = ("出价 bid ROI 预算 budget 美妆 beauty " * 80)[:2000]
REPEATED_CHAR = "价" * 2000


@pytest.mark.parametrize("query", [LONG_ZH[:2000], LONG_EN, LONG_MIXED, REPEATED_CHAR], ids=["zh", "en", "mixed", "one_char"])
@pytest.mark.parametrize("path", ["/search", "/recall"])
def test_a_2000_character_query_is_cut_and_the_cut_is_reported(brand_a, global_rule, path, query):
    body = {"query": query, "force": True} if path == "/recall" else {"query": query}
    response = brand_a.post(path, body)
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["query_truncated"] is True
    assert 0 < answer["query_chars_embedded"] < len(query)


@pytest.mark.parametrize("path", ["/search", "/recall"])
def test_a_query_past_the_limit_is_422(brand_a, path):
    response = brand_a.post(path, {"query": LONG_ZH[:2001]})
    assert response.status_code == 422
    assert "2000" in str(response.json()["detail"])


def test_a_long_conversation_in_recall_is_cut_and_reported(brand_a, global_rule):
    messages = [
        {"role": "user", "content": LONG_ZH[:1500]},
        {"role": "assistant", "content": LONG_EN[:1500]},
        {"role": "user", "content": "医药OTC 出价上限是多少？" + LONG_ZH[:1800]},
    ]
    response = brand_a.post("/recall", {"messages": messages})
    assert response.status_code == 200, response.content
    assert response.json()["query_truncated"] is True


def test_an_oversized_body_is_413(brand_a):
    response = brand_a.post("/ingest", content=('{"text": "' + "出价" * 200_000 + '"}').encode())
    assert response.status_code == 413
    assert "detail" in response.json()


@pytest.mark.parametrize("top_k", [50])
def test_the_largest_top_k_is_served_with_a_cut_query(brand_a, global_rule, top_k):
    response = brand_a.post("/search", {"query": LONG_MIXED, "top_k": top_k})
    assert response.status_code == 200 and response.json()["query_truncated"] is True
