"""Query handling before ranking: language, the keyword arm's text, synonym expansion, and
the offline deep-mode rewrite."""

from memories.search.deep import offline_rewrite, question_to_statement
from memories.search.hybrid import RankingConfig
from memories.search.query import QueryLanguage, keyword_text, prepare_query, query_language
from memories.search.synonyms import expand_terms
from memories.search.tokens import query_tokens


def test_language_of_mixed_queries():
    assert query_language("感冒灵在千川怎么出价") == QueryLanguage.CHINESE
    assert query_language("布洛芬 RED best hours 投放") == QueryLanguage.CHINESE
    assert query_language("When did Caroline go to the LGBTQ support group?") == QueryLanguage.ENGLISH
    assert query_language("ROI") == QueryLanguage.ENGLISH


def test_chinese_question_words_leave_the_keyword_arm():
    text = keyword_text("泡腾片在微信广告提高竞价以后效果怎么样？")
    tokens = query_tokens(text)
    # 怎么/么样 would match every question-like note; 片在/在微 exist in no real word.
    assert not {"怎么", "么样", "片在", "在微"} & set(tokens)
    assert {"泡腾", "竞价", "微信"} <= set(tokens)


def test_short_terms_survive_untouched():
    assert keyword_text("出价") == "出价"
    assert keyword_text("大促 预算") == "大促 预算"
    # A query of nothing but question words falls back to itself rather than to nothing.
    assert keyword_text("怎么办？") == "怎么办？"


def test_english_answer_shape_words_are_dropped_but_content_kept():
    assert keyword_text("Would Caroline likely pursue counseling?").split() == ["Caroline", "pursue", "counseling"]
    assert "Caroline's" in keyword_text("What is Caroline's job?")


def test_vector_arm_reads_the_question_as_asked():
    prepared = prepare_query("预算怎么定？")
    assert prepared.vector_text == "预算怎么定？"
    assert prepare_query("预算怎么定？", strip_questions=False).keyword_text == "预算怎么定？"


def test_per_language_weights():
    config = RankingConfig(vector_weight=0.3, keyword_weight=0.7, zh_vector_weight=0.6, zh_keyword_weight=0.4)
    assert config.weights_for(QueryLanguage.CHINESE) == (0.6, 0.4)
    assert config.weights_for(QueryLanguage.ENGLISH) == (0.3, 0.7)
    assert RankingConfig(vector_weight=0.3, keyword_weight=0.7).weights_for(QueryLanguage.CHINESE) == (0.3, 0.7)


def test_synonym_expansion_crosses_languages_and_platform_names():
    assert {"竞价", "bid"} <= set(expand_terms("感冒灵 出价"))
    assert {"小红书", "聚光"} <= set(expand_terms("布洛芬 RED 投放"))
    assert "千川" in expand_terms("Qianchuan budget")
    # Latin terms only match whole words: "LP" inside "help" is not a landing page.
    assert "落地页" not in expand_terms("help me")


def test_offline_rewrite_adds_statement_and_synonym_subqueries():
    subqueries = offline_rewrite("感冒灵在千川怎么调整出价？")
    assert subqueries[0] == "感冒灵在千川怎么调整出价？"
    assert any("竞价" in s for s in subqueries)
    assert question_to_statement("When did Caroline go to the support group?") == "Caroline go to the support group"


def test_query_shape_tells_questions_from_term_lists_and_everyday_talk_from_ad_ops():
    chat = prepare_query("林晓对什么食物过敏？")
    assert chat.question and not chat.domain_terms
    adops = prepare_query("千川 自热火锅 video creative 点击率")
    assert not adops.question and adops.domain_terms
    assert prepare_query("When did Melanie adopt her puppy").question
    # 几点 is in the dayparting synonym group, but everyday questions ask it too.
    assert not prepare_query("明天几点出发？").domain_terms
    assert prepare_query("感冒灵在千川怎么出价").domain_terms


def test_query_adaptive_weights_follow_the_shape_before_the_language():
    config = RankingConfig(vector_weight=0.4, keyword_weight=0.6, zh_chat_vector_weight=0.6, terms_vector_weight=0.3)
    assert config.weights_for_query(prepare_query("孙悦的男朋友什么时候过生日？")) == (0.6, 0.4)
    # An ad-ops question keeps the global weights; an English question too.
    assert config.weights_for_query(prepare_query("感冒灵在千川怎么出价？")) == (0.4, 0.6)
    assert config.weights_for_query(prepare_query("What did Caroline make?")) == (0.4, 0.6)
    vector, keyword = config.weights_for_query(prepare_query("千川 预算 ROI"))
    assert (round(vector, 6), round(keyword, 6)) == (0.3, 0.7)
    # Unset fields leave every query on the one global pair.
    assert RankingConfig().weights_for_query(prepare_query("千川 预算 ROI")) == RankingConfig().weights_for(QueryLanguage.CHINESE)


def test_english_hypothetical_and_when_questions_can_have_their_own_weights():
    would = prepare_query("Would Caroline likely have Dr. Seuss books on her bookshelf?")
    when = prepare_query("When did Melanie paint a sunrise?")
    assert would.hypothetical and not would.asks_when and when.asks_when and not when.hypothetical
    # 可能/会不会 are not read as hypothetical: the shapes are measured on English only.
    assert not prepare_query("ROI 可能会下降吗").hypothetical
    config = RankingConfig(hypothetical_vector_weight=0.5, when_vector_weight=0.3)
    assert config.weights_for_query(would) == (0.5, 0.5)
    assert [round(w, 6) for w in config.weights_for_query(when)] == [0.3, 0.7]
    # Off by default: both keep the global pair.
    assert RankingConfig().weights_for_query(would) == RankingConfig().weights_for_query(when) == (0.4, 0.6)
