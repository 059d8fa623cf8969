"""The shared vocabulary: time ranges, chit-chat, the typed trigger data and the
documents built from it, and how two statements relate."""

from pathlib import Path

import pytest
from django.core.management import call_command

from api.recall import should_retrieve
from governance.funnel.trigger_schemas import SCHEMAS, example_event, field_rows, markdown_table, parse_trigger_data
from governance.models import Trace
from textrules import signals as s

ROOT = Path(__file__).resolve().parents[2]


# --- wording -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,ranges",
    [
        ("周一上午8点-11点CTR最高", [(8, 11)]),
        ("每天9-11点加价10%", [(9, 11)]),
        ("只在20:00-23:00投放", [(20, 23)]),
        ("9点到11点和19:30-22:00", [(9, 11), (19.5, 22)]),
    ],
)
def test_time_ranges_are_ranges_not_negative_numbers(text, ranges):
    assert s.time_ranges(text) == ranges
    assert all(n >= 0 for n in s.numbers(text))
    assert -11.0 not in s.numbers(text)


def test_a_real_minus_sign_still_reads_as_negative():
    assert s.numbers("ROI 变化 -20%") == [-20.0]


@pytest.mark.parametrize("text", ["谢谢，辛苦了", "ok thanks!", "好的，收到，谢谢！", "Thanks a lot, great work!", "嗯嗯 好的", "辛苦啦～"])
def test_several_thanks_in_a_row_are_chitchat(text):
    assert s.is_chitchat(text)
    assert should_retrieve(text).retrieve is False


@pytest.mark.parametrize("text", ["谢谢！另外记一下：brand_A 周末不要投信息流广告", "ok thanks, and cap brand_F CPC at 3 yuan"])
def test_thanks_followed_by_content_is_content(text):
    assert not s.is_chitchat(text)
    assert should_retrieve(text).retrieve is True


@pytest.mark.django_db
def test_chitchat_is_not_classified_as_content(ingest):
    decision = ingest("谢谢，辛苦了", source="user", advertiser="brand_A")
    # "could not classify", then the classifier's own account: a greeting.
    assert decision.action == "REJECT" and decision.reason_codes[1]["code"] == "greeting" and "greeting" in decision.reasons[1]


@pytest.mark.parametrize(
    "text",
    [
        "brand_B 明确要求：口红类目也投放男性人群",
        "brand_C 反馈：耳机品类可以用低价促销素材",
        "We want brand_K ads only on Douyin",
        "Correction: the carousel creative actually had 20% higher CTR",
    ],
)
def test_stance_and_correction_cues(text):
    assert s.has(s.ATTITUDE, text) or s.has(s.CORRECTION, text)


# --- typed trigger data ---------------------------------------------------------------------
def test_synonyms_unknown_and_invalid_keys():
    parsed = parse_trigger_data(
        "strategy_execution",
        {"strategy": "三阶段冷启动", "target_roi": 3.0, "actual": {"roi": "3.4"}, "duration_days": "三周", "owner": "投放一组"},
    )
    assert parsed.get("strategy_used") == "三阶段冷启动"
    assert parsed.get("target_metric") == {"roi": 3.0} and parsed.get("actual_metric") == {"roi": 3.4}
    assert parsed.unknown == ["owner"] and parsed.invalid == ["duration_days"]
    anomaly = parse_trigger_data("anomaly_pattern", {"baseline": 40, "observed": "68", "occurrences": 3, "cause": "素材老化"})
    assert (anomaly.get("expected"), anomaly.get("actual"), anomaly.get("recurrence"), anomaly.get("possible_cause")) == (
        40,
        68,
        3,
        "素材老化",
    )


@pytest.mark.django_db
def test_a_field_of_the_wrong_shape_is_set_aside_not_an_error(trigger):
    decision = trigger(
        "strategy_execution",
        advertiser="brand_A",
        source="tool",
        summary="医药OTC冷启动采用三阶段出价，ROI目标3.0实际3.4",
        data={
            "strategy_used": "三阶段出价",
            "category": "医药OTC",
            "target_metric": {"roi": 3.0},
            "actual_metric": {"roi": 3.4},
            "duration_days": "三周",
        },
    )
    assert decision.action == "WRITE", decision.reasons
    trace = Trace.objects.get(event_id=decision.event_id, stage="value").scores["data"]
    assert trace["invalid_keys"] == ["duration_days"]


def test_the_documented_table_is_the_schemas_table():
    doc = (ROOT / "docs" / "write-path.md").read_text(encoding="utf-8")
    block = doc.split("<!-- trigger-fields:start -->\n")[1].split("\n<!-- trigger-fields:end -->")[0]
    assert block == markdown_table()


@pytest.mark.django_db
def test_trigger_help_lists_every_field(capsys):
    with pytest.raises(SystemExit):
        call_command("memory", "trigger", "--help")
    out = capsys.readouterr().out
    for trigger_type in SCHEMAS:
        assert trigger_type in out
        assert all(row["name"] in out for row in field_rows(trigger_type))


@pytest.mark.django_db
def test_openapi_has_one_example_per_event_type(client):
    spec = client.get("/api/v1/openapi.json").json()
    examples = spec["paths"]["/api/v1/trigger"]["post"]["requestBody"]["content"]["application/json"]["examples"]
    assert set(examples) == set(SCHEMAS)
    assert examples["strategy_execution"]["value"]["data"]["target_metric"] == {"roi": 3.0}


@pytest.mark.django_db
@pytest.mark.parametrize("trigger_type", list(SCHEMAS))
def test_every_documented_example_is_written(trigger, trigger_type):
    body = example_event(trigger_type)
    decision = trigger(trigger_type, advertiser=body["advertiser"], summary=body["summary"], data=body["data"], source=body["source"])
    if trigger_type == "rule_update":
        # A platform rule a tool reports (what an agent's token may send) waits for an operator.
        assert decision.action == "PENDING_REVIEW" and decision.layer == "L1", decision.reasons
    else:
        assert decision.action == "WRITE", decision.reasons
    value = Trace.objects.get(event_id=decision.event_id, stage="value").scores
    assert value["met"] == 3 and value["data"]["unknown_keys"] == []
