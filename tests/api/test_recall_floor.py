"""/recall stays quiet for what the store does not know: the small-talk rule (both
languages, no list of whole greetings) and the relevance floor, on the real demo store."""

import pytest

from api.recall import RecallSkip, content_words, should_retrieve


@pytest.mark.parametrize(
    ("text", "skipped"),
    [
        ("收到，我先去开会了", RecallSkip.SMALL_TALK),
        ("哈哈哈哈", RecallSkip.SMALL_TALK),
        ("哈哈 笑死我了", RecallSkip.SMALL_TALK),
        ("好的好的，没问题～", RecallSkip.SMALL_TALK),
        ("我去吃饭了", RecallSkip.SMALL_TALK),
        ("lol", RecallSkip.SMALL_TALK),
        ("haha that's funny", RecallSkip.SMALL_TALK),
        ("okay, let me check and get back to you", RecallSkip.SMALL_TALK),
        ("brb, meeting", RecallSkip.SMALL_TALK),
        ("/new", RecallSkip.SLASH_COMMAND),
        ("/model gpt-4 出价", RecallSkip.SLASH_COMMAND),
        ("😂😂😂", RecallSkip.NO_WORDS),
        ("。。。", RecallSkip.NO_WORDS),
        ("", RecallSkip.EMPTY),
    ],
)
def test_small_talk_slash_commands_and_emoji_skip_the_search(text, skipped):
    decision = should_retrieve(text)
    assert decision.retrieve is False and decision.skipped == skipped


@pytest.mark.parametrize(
    "text", ["口红可以投男性人群吗", "品牌词CPC多少钱", "ROI 下降", "Should lipstick ads target men?", "好的，那 brand_A 的出价上限是多少"]
)
def test_short_ad_ops_questions_still_search(text):
    assert should_retrieve(text).retrieve is True


def test_content_words_drop_fillers_and_laughter_not_topics():
    assert content_words("哈哈哈，收到了") == (0, 0)
    assert content_words("thanks lol") == (0, 0)
    assert content_words("双11 预算") == (3, 1)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ["帮我写一首关于秋天的诗", "明天北京天气怎么样", "How do I center a div in CSS?", "What is the capital of Australia?"]
)
def test_off_topic_questions_inject_nothing_and_say_why(demo_memories, operator_token, query):
    body = operator_token.post("/recall", {"query": query}).json()
    assert body["context"] == "" and body["memories"] == []
    assert body["retrieved"] is True and body["skipped"] == RecallSkip.BELOW_FLOOR
    assert body["relevance"]["best"] < body["relevance"]["floor"]


@pytest.mark.django_db
def test_chitchat_reports_the_skip_without_searching(demo_memories, operator_token):
    body = operator_token.post("/recall", {"messages": [{"role": "user", "content": "收到，我先去开会了"}]}).json()
    assert body["retrieved"] is False and body["skipped"] == RecallSkip.SMALL_TALK and body["relevance"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_on_topic_question_clears_the_floor_in_both_modes(demo_memories, operator_token, mode):
    body = operator_token.post("/recall", {"query": "医药OTC冷启动怎么出价", "mode": mode}).json()
    assert body["skipped"] is None and body["relevance"]["best"] >= body["relevance"]["floor"]
    assert {9, 30} & {m["id"] for m in body["memories"]}


@pytest.mark.django_db
def test_force_injects_even_below_the_floor(demo_memories, operator_token):
    body = operator_token.post("/recall", {"query": "明天北京天气怎么样", "force": True}).json()
    assert body["memories"] and body["skipped"] is None


def test_length_norm_damps_only_entries_longer_than_the_anchor():
    from memories.search.relevance import hit_relevance, length_norm

    assert length_norm(120) == 1.0 and length_norm(500) == 1.0
    assert length_norm(1000) == pytest.approx(1 / 1.5)
    short = hit_relevance(keyword=5.0, cosine=0.9, background=0.85, length=300)
    long = hit_relevance(keyword=5.0, cosine=0.9, background=0.85, length=2000)
    assert long < short and hit_relevance(keyword=5.0, cosine=0.9, background=0.85, length=2000, anchor=None) == short


def test_a_concept_counts_when_the_note_carries_it_under_another_name_only():
    from memories.search.relevance import concepts_carried, query_concepts

    concepts = query_concepts("Did influencer seeding help the beauty launch?")
    assert concepts_carried(concepts, "brand_B 美妆新品首发期用达人种草+信息流组合投放") == 1
    # The same name in both is bm25's evidence already, and a note without the concept has none.
    assert concepts_carried(query_concepts("达人种草效果怎么样"), "达人种草+信息流") == 0
    assert concepts_carried(concepts, "brand_A 感冒药冷启动出价") == 0


@pytest.mark.django_db
def test_english_question_about_a_note_written_in_chinese_clears_the_floor(demo_memories, operator_token):
    # No word is shared with 达人种草 (bm25 0) and the cross-language cosine sits in the
    # off-topic band; the synonym table's English name carries it over the floor.
    body = operator_token.post("/recall", {"query": "Did influencer seeding work for brand_B's new beauty launch?"}).json()
    assert body["skipped"] is None and body["relevance"]["best"] >= body["relevance"]["floor"]
    assert {13, 32} & {m["id"] for m in body["memories"]}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query,content,only",
    [
        # One language, nothing but a number in common: no evidence of the topic.
        ("电脑风扇转速3000转正常吗", "brand_A 医药OTC日预算3000元", True),
        # Across languages a number can be the one literal link, when it means the same kind of thing.
        ("What if the balance lasts under 3 days?", "账户余额低于3天消耗时必须暂停新计划创建", False),
        # ... but not a temperature against a percentage.
        ("Set the oven to 200 degrees", "大促期间预算提升200%", True),
        # Words the keyword index stems alike are words in common: the index says so, not a
        # rule of ours ("studying" and "studies" are both studi to porter).
        ("when did she paint 2 sunsets", "She painted 2 sunset pictures", False),
        ("Is he studying for 2 exams?", "He studies 2 hours a day", False),
        # The index matches the 3 of 1.3 (written 1_3, which it splits at the underscore):
        # a piece of a number is no word in common either.
        ("账户余额不够3天消耗怎么办", "oCPC目标转化出价不得高于合同约定CPA的1.3倍", True),
        # A word in common is evidence as usual.
        ("医药OTC 3000元预算够吗", "brand_A 医药OTC日预算3000元", False),
    ],
)
def test_a_number_alone_in_common_is_no_evidence_of_the_topic(make_memory, query, content, only):
    from memories.search.backends import get_search_backend
    from memories.search.query import prepare_query
    from memories.search.relevance import _a_number_is_the_link, _numbers_only_in_common
    from memories.search.tokens import query_tokens

    make_memory("brand_B 美妆 小红书 达人种草 复盘")  # a second row, so the words have an idf
    memory = make_memory(content)
    tokens = query_tokens(prepare_query(query).keyword_text)
    bm25 = get_search_backend().bm25_among(tokens, [memory.id])
    assert bm25[memory.id] > 0  # the hit matches the question in the index
    no_evidence = memory.id in _numbers_only_in_common(tokens, bm25) and not _a_number_is_the_link(query, content)
    assert no_evidence is only


@pytest.mark.django_db
def test_the_index_scores_the_given_memories_that_match_as_the_keyword_arm_does(make_memory):
    from memories.search.backends import get_search_backend
    from memories.search.query import prepare_query
    from memories.search.tokens import query_tokens
    from memories.selectors import memory_search

    fever = make_memory("孩子发烧38度可以吃什么感冒药")
    budget = make_memory("brand_A 医药OTC日预算3000元，冷启动期不调价")
    unrelated = make_memory("brand_B 美妆新品首发期用达人种草")
    backend = get_search_backend()
    query = "感冒药的日预算3000够吗"
    tokens = query_tokens(prepare_query(query).keyword_text)
    scored = backend.bm25_among(tokens, [fever.id, budget.id, unrelated.id])
    # A memory that matches none of the words is left out, as a row FTS5 does not match.
    assert set(scored) == {fever.id, budget.id} and all(score > 0 for score in scored.values())
    assert scored[budget.id] > scored[fever.id]  # two words and a number beat one word
    # The recall floor's keyword evidence for the search's hits is the same bm25 (the
    # search's explanation rounds it to four decimals).
    results = memory_search(query=query, top_k=3, record_access=False).results
    arm = backend.bm25(prepare_query(query).keyword_text, {r.memory.id: float(r.explain.get("keyword", 0.0)) for r in results})
    assert scored == pytest.approx({mid: score for mid, score in arm.items() if score > 0}, abs=1e-4)
    assert backend.bm25_among([], [budget.id]) == {} and backend.bm25_among(tokens, []) == {}


@pytest.mark.django_db
def test_a_shared_number_does_not_lift_an_off_topic_question(demo_memories, operator_token):
    # The demo store's 38女神节 note shares "38" with a pet's temperature and nothing else.
    body = operator_token.post("/recall", {"query": "我家猫咪体温38度正常吗"}).json()
    assert body["skipped"] == RecallSkip.BELOW_FLOOR and body["memories"] == []


@pytest.mark.parametrize(
    "query", ["Can you review my essay?", "Is a red dress good for a wedding?", "Any leads on a new job?", "best budget laptop"]
)
def test_an_everyday_english_word_alone_is_not_an_ad_ops_concept(query):
    from memories.search.relevance import concepts_carried, query_concepts

    # review, red, leads and budget name 复盘, 小红书, 线索 and 预算 in the synonym table,
    # and have an everyday sense: alone they do not make a question about ad-ops.
    concepts = query_concepts(query)
    assert concepts == []
    assert concepts_carried(concepts, "brand_A 小红书种草复盘：线索成本下降，日预算上调") == 0
    # Beside an ad-ops name, the same concept counts.
    assert query_concepts("review of the Qianchuan budget") != []
