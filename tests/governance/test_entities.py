"""Entity links and relations: extracted in the governed write path (offline from the
typed event fields and the ad-ops vocabulary; with the LLM when configured, validated and
falling back to offline), and read back by the entity arm of hybrid search."""

from __future__ import annotations

from governance.knowledge.entities import link_entities, link_entities_with_llm
from governance.models import Trace
from governance.write.hard_rules import Authority, WriteOrigin
from governance.write.memory import Proposal, governed_write
from memories.constants import LinkOrigin
from memories.models import Memory, MemoryEntity, Relation
from memories.search.filters import SearchFilter
from memories.search.hybrid import RankingConfig, hybrid_search
from memories.selectors import memory_search
from tests.fakes.openai_server import chat

OPERATOR = Authority(origin=WriteOrigin.APPROVAL, actor="test", person=True, operator=True)


def linked(memory: Memory) -> set[tuple[str, str]]:
    return set(MemoryEntity.objects.filter(memory=memory).values_list("entity__kind", "entity__name"))


def triples(memory: Memory) -> set[tuple[str, str, str]]:
    return set(Relation.objects.filter(memory=memory).values_list("subject__name", "predicate", "object__name"))


def write(content: str, **fields) -> Memory:
    fields.setdefault("layer", "L2")
    fields.setdefault("source", "tool")
    return governed_write(proposal=Proposal(content=content, **fields), authority=OPERATOR)


def test_trigger_fields_and_text_become_entities_and_relations(trigger):
    decision = trigger(
        "strategy_execution",
        advertiser="brand_A",
        source="tool",
        summary="brand_A 医药OTC 冷启动计划在抖音信息流采用三阶段出价，21天后ROI 3.4 高于目标 3.0，因为前3天保守出价积累了转化",
        data={
            "plan_id": "plan_otc_007",
            "category": "医药OTC",
            "target_metric": {"roi": 3.0},
            "actual_metric": {"roi": 3.4, "cpa": 42},
            "duration_days": 21,
            "strategy_used": "三阶段冷启动出价",
            "cause": "前3天保守出价积累转化",
            "conditions": "新计划学习期",
        },
    )
    assert decision.action == "WRITE", decision.reasons
    memory = Memory.objects.get(pk=decision.memory_id)
    entities = linked(memory)
    assert {
        ("advertiser", "brand_A"),
        ("category", "医药OTC"),
        ("plan", "plan_otc_007"),
        ("metric", "ROI"),
        ("metric", "CPA"),
        ("channel", "抖音信息流"),
        ("event", "冷启动"),
    } <= entities
    assert {
        ("brand_A", "in_category", "医药OTC"),
        ("brand_A", "runs_plan", "plan_otc_007"),
        ("brand_A", "uses_channel", "抖音信息流"),
        ("brand_A", "measured_by", "ROI"),
    } <= triples(memory)


def test_environment_change_names_the_promotion_and_its_time_slot(trigger):
    decision = trigger(
        "environment_change",
        advertiser="brand_B",
        source="tool",
        summary="双十一预热期开始，美妆类目百度搜索CPC较上周上涨18%，需要调整出价节奏",
        data={
            "event": "双十一预热",
            "category": "美妆",
            "signal": "CPC上涨18%",
            "impact": "出价节奏按大促模板调整",
            "time_window": "2026-11-01 至 2026-11-11",
        },
    )
    assert decision.action == "WRITE", decision.reasons
    entities = linked(Memory.objects.get(pk=decision.memory_id))
    assert {("time_slot", "双11"), ("event", "大促"), ("category", "美妆"), ("channel", "百度搜索"), ("metric", "CPC")} <= entities


def test_a_new_version_gets_its_own_links(db):
    first = write("brand_C 手机新品在腾讯广告投放，CTR 1.8%", advertiser="brand_C", category="数码")
    second = governed_write(
        proposal=Proposal(content="brand_C 手机新品改投快手，CTR 2.4%", layer="L2", source="tool"), authority=OPERATOR, supersedes=first
    )
    assert ("channel", "腾讯广告") in linked(first)
    assert ("channel", "快手") in linked(second) and ("channel", "腾讯广告") not in linked(second)
    assert ("advertiser", "brand_C") in linked(second)  # the scope carries forward


def test_vocabulary_is_canonical_and_ascii_aliases_match_whole_words(db):
    memory = write("The heroic team tuned ROAS on 朋友圈广告 every weekend", advertiser=None)
    entities = linked(memory)
    assert ("metric", "ROI") in entities and ("channel", "腾讯广告") in entities and ("time_slot", "周末") in entities
    # "roi" inside "heroic" is no metric, and there is only one ROI entity however it was spelled.
    assert sum(1 for kind, _ in entities if kind == "metric") == 1


def test_llm_extraction_adds_validated_entities(db, openai_gateway):
    memory = write("brand_D 新品在星图达人矩阵投放，首周GMV 120万", advertiser="brand_D", category="母婴")
    openai_gateway.queue(
        chat(
            {
                "entities": [{"kind": "channel", "name": "星图达人矩阵"}, {"kind": "metric", "name": "gmv"}],
                "relations": [
                    {
                        "subject": {"kind": "advertiser", "name": "brand_D"},
                        "predicate": "uses_channel",
                        "object": {"kind": "channel", "name": "星图达人矩阵"},
                    }
                ],
            }
        )
    )
    report = link_entities_with_llm(memory)
    assert report.origin == LinkOrigin.LLM
    origins = dict(MemoryEntity.objects.filter(memory=memory).values_list("entity__name", "origin"))
    assert origins["星图达人矩阵"] == LinkOrigin.LLM and origins["GMV"] == LinkOrigin.OFFLINE and origins["母婴"] == LinkOrigin.OFFLINE
    assert ("brand_D", "uses_channel", "星图达人矩阵") in triples(memory)
    request = openai_gateway.requests_to("/chat/completions")[-1].json
    assert "<memory>" in request["messages"][1]["content"]  # the content is delimited as data
    assert Trace.objects.filter(memory=memory, stage="entities.llm", decision="linked").exists()
    # A query naming the LLM-only entity now reaches the memory through the entity arm.
    hits = hybrid_search("星图达人矩阵", SearchFilter(advertisers=("brand_D",)), top_k=5).hits
    assert hits and hits[0].memory_id == memory.pk and hits[0].explain["entity"] > 0


def test_llm_answer_of_the_wrong_shape_keeps_the_offline_links(db, openai_gateway):
    memory = write("brand_A 抖音信息流 CPA 超出目标20%", advertiser="brand_A")
    offline = linked(memory)
    openai_gateway.queue(chat({"entities": [{"kind": "planet", "name": "Mars"}]}))
    report = link_entities_with_llm(memory)
    assert report.origin == LinkOrigin.OFFLINE and "malformed JSON" in report.fallback_reason
    assert linked(memory) == offline and ("channel", "抖音信息流") in offline
    trace = Trace.objects.get(memory=memory, stage="entities.llm")
    assert trace.decision == "fallback_offline"


def test_the_write_path_schedules_the_llm_after_commit(db, openai_gateway, django_capture_on_commit_callbacks, settings):
    settings.MEMORY_ENTITIES_LLM = True
    openai_gateway.queue(chat({"entities": [{"kind": "plan", "name": "plan_星火_02"}], "relations": []}))
    with django_capture_on_commit_callbacks(execute=True):
        memory = write("brand_A 星火计划二期 ROI 2.9", advertiser="brand_A")
    assert ("plan", "plan_星火_02") in linked(memory) and ("metric", "ROI") in linked(memory)


def test_without_the_switch_the_write_path_makes_no_model_call(db, openai_gateway, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        memory = write("brand_A 星火计划二期 ROI 2.9", advertiser="brand_A")
    assert openai_gateway.requests_to("/chat/completions") == []
    assert ("metric", "ROI") in linked(memory)


def test_link_entities_rebuilds_links_for_a_memory_written_before(make_memory):
    # memory_create is the storage layer under the write path: it links nothing itself.
    memory = make_memory("brand_B 口红在小红书种草后 CTR 提升到 3.1%", advertiser="brand_B")
    assert not linked(memory)
    report = link_entities(memory)
    assert report.entities >= 4
    assert {("category", "口红"), ("category", "美妆"), ("channel", "小红书"), ("metric", "CTR")} <= linked(memory)


def test_entity_arm_finds_a_memory_the_query_words_miss_and_explains_it(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        target = write("大促节奏：双11当天爆发期提价30%，返场期恢复原出价", advertiser=None)
        write("口红新品首周CTR 2.2%", advertiser="brand_B", category="美妆")
    search_filter = SearchFilter(advertisers=("brand_B",))
    on = hybrid_search("双十一怎么调整", search_filter, top_k=5).hits
    off = hybrid_search("双十一怎么调整", search_filter, top_k=5, config=RankingConfig(entity_weight=0.0)).hits
    top = next(hit for hit in on if hit.memory_id == target.pk)
    assert top.explain["entity"] == 1.0
    assert on[0].memory_id == target.pk
    assert all(hit.explain["entity"] == 0.0 for hit in off)


def test_entity_arm_respects_the_advertiser_scope(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        mine = write("brand_A 百度搜索品牌词 CPC 1.1元", advertiser="brand_A")
        theirs = write("brand_C 百度搜索品牌词 CPC 1.4元", advertiser="brand_C")
    results = memory_search(query="百度 CPC", advertisers=("brand_A",), top_k=10, record_access=False).results
    ids = {r.memory.pk for r in results}
    assert mine.pk in ids and theirs.pk not in ids


def test_backfill_links_memories_written_before_links_existed(make_memory):
    from governance.knowledge.entities.backfill import memories_link_backfill

    old = [make_memory("brand_A 百度搜索 CPC 1.3元", advertiser="brand_A"), make_memory("双十二预热 CPM 上涨 25%", layer="L2")]
    report = memories_link_backfill(batch_size=1)
    assert report["examined"] == 2 and report["still_unlinked"] == 0
    assert ("channel", "百度搜索") in linked(old[0]) and ("time_slot", "双12") in linked(old[1])
    assert memories_link_backfill()["examined"] == 0


def test_entity_arm_keeps_to_the_kind_filter(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        episode = write("brand_A 抖音信息流 双11当天 ROI 3.2，CPA 41元", advertiser="brand_A")
        rule = write("抖音信息流大促期间出价上调不超过30%，否则ROI下降", advertiser="brand_A")
    kinds = {m.pk: m.kind for m in Memory.objects.filter(pk__in=[episode.pk, rule.pk])}
    for kind in set(kinds.values()):
        hits = hybrid_search("抖音信息流", SearchFilter(advertisers=("brand_A",), kinds=(kind,)), top_k=5).hits
        assert {h.memory_id for h in hits} <= {pk for pk, k in kinds.items() if k == kind}
