"""memory ingest / trigger / review through the real management command."""

import pytest

from governance.models import ReviewItem
from memories.models import Memory
from tests.conftest import staff_user


@pytest.mark.django_db
def test_ingest_json_has_the_contract_shape_and_stages(cli):
    code, body, err = cli(
        "ingest", "用户纠正：brand_A 医药OTC类目出价不要超过1.5元，以后按这个执行", "--source", "user", "--advertiser", "brand_A", "--json"
    )
    assert code == 0, err
    assert {"action", "layer", "memory_id", "event_id", "reasons"} <= set(body)
    assert body["action"] == "WRITE" and body["layer"] == "L2"
    assert [s["stage"] for s in body["stages"]][:3] == ["safety", "provenance", "classify"]
    assert Memory.objects.get(pk=body["memory_id"]).advertiser == "brand_A"


@pytest.mark.django_db
def test_ingest_explain_walks_the_stages_in_order(cli):
    code, out, _ = cli(
        "ingest",
        "The user insisted: never run feed ads on weekends for brand_B",
        "--source",
        "user",
        "--advertiser",
        "brand_B",
        "--explain",
    )
    assert code == 0
    order = [
        out.index(f"[{stage}]")
        for stage in (
            "safety",
            "provenance",
            "classify",
            "guard_rules",
            "value",
            "judge",
            "layer_policy",
            "conflict",
            "validate",
            "decision",
        )
    ]
    assert order == sorted(order)
    assert "WRITE L2 memory #" in out


@pytest.mark.django_db
def test_trigger_and_bad_input_are_one_line_errors(cli):
    code, body, _ = cli("trigger", "environment_change", "--summary", "系统监测到今天大促流量激增，需控量", "--source", "tool", "--json")
    assert code == 0 and body["action"] == "WRITE" and body["layer"] == "L3"
    for argv, needle in [
        (("trigger", "not_a_type", "--summary", "x"), "unknown event type"),
        (("trigger", "user_feedback", "--data", "{broken"), "--data is not valid JSON"),
        (("ingest", "用户要求出价不超过1元", "--source", "robot"), "unknown source"),
        (("ingest", "用户要求出价不超过1元", "--layer", "L7"), "unknown layer"),
        (("review", "approve"), "needs an item id"),
        (("review", "approve", "424242"), "not found"),
    ]:
        code, _, err = cli(*argv)
        assert code == 1 and needle in err and err.count("\n") == 1, err


@pytest.mark.django_db
def test_review_list_approve_reject(cli, django_user_model):
    staff_user(django_user_model, "lina", "operator")
    cli("ingest", "平台规定：医药OTC类目所有广告出价不得超过2元", "--source", "user", "--json")
    cli("ingest", "Compliance policy: all pharma OTC ads must never claim a cure", "--source", "tool", "--json")
    code, body, _ = cli("review", "list", "--json")
    assert code == 0 and [i["kind"] for i in body["items"]] == ["pending_write", "pending_write"]
    first, second = body["items"]
    code, body, err = cli("review", "approve", str(first["id"]), "--as", "lina", "--json")
    assert code == 0, err
    assert body["action"] == "WRITE" and Memory.objects.get(pk=body["memory_id"]).layer == "L1"
    code, _, err = cli("review", "reject", str(second["id"]), "--as", "lina", "--json")
    assert code == 1 and "note" in err
    code, body, _ = cli("review", "reject", str(second["id"]), "--as", "lina", "--note", "not a real policy", "--correct", "yes", "--json")
    assert code == 0 and body["action"] == "REJECT"
    assert ReviewItem.objects.get(pk=second["id"]).decision_correct is True
    code, body, _ = cli("review", "list", "--json")
    assert body["items"] == []
    code, out, _ = cli("review", "list", "--status", "all")
    assert "approved" in out and "rejected" in out


@pytest.mark.django_db
def test_cli_decisions_act_as_a_real_user_and_keep_four_eyes(cli, django_user_model):
    cli("ingest", "平台规定：医药OTC类目所有广告出价不得超过2元", "--source", "user", "--json")
    item = ReviewItem.objects.get()
    code, _, err = cli("review", "approve", str(item.pk), "--as", "nobody", "--json")
    assert code == 1 and "nobody" in err and err.count("\n") == 1
    django_user_model.objects.create_user(username="intern", password="pw")
    code, _, err = cli("review", "approve", str(item.pk), "--as", "intern", "--json")
    assert code == 1 and "may not decide" in err
    staff_user(django_user_model, "wang", "reviewer")
    code, _, err = cli("review", "approve", str(item.pk), "--as", "wang", "--json")
    assert code == 1 and "operator" in err  # an L1 rule needs an operator, from the CLI too
    ReviewItem.objects.filter(pk=item.pk).update(proposed_by="wang")
    code, _, err = cli("review", "reject", str(item.pk), "--as", "wang", "--note", "不对", "--json")
    assert code == 1 and "proposed" in err
    assert ReviewItem.objects.get(pk=item.pk).status == "open"


@pytest.mark.django_db
def test_review_list_prints_one_line_per_item_whatever_the_content(cli):
    # A rule pasted from a notice keeps its line breaks; the queue still reads one item a line.
    cli("ingest", "平台规定：\n医药OTC类目所有广告出价不得超过2元\n\n违者计划直接下线", "--source", "user", "--json")
    cli("ingest", "Compliance policy:\r\nall pharma OTC ads must never claim a cure,\tnor promise 100% 有效", "--source", "tool", "--json")
    code, body, _ = cli("review", "list", "--json")
    assert code == 0 and len(body["items"]) == 2
    assert all("\n" in item["content"] for item in body["items"]), "the test needs content with line breaks"

    code, out, err = cli("review", "list")
    assert code == 0, err
    header, *rows = out.rstrip("\n").split("\n")
    assert header.startswith("2 item(s)") and len(rows) == 2, out
    for item, row in zip(body["items"], rows, strict=True):
        assert row.startswith(f"#{item['id']} ") and "\r" not in row and "\t" not in row, row
    assert "平台规定： 医药OTC类目" in out and "Compliance policy: all pharma" in out
