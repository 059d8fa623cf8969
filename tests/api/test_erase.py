"""Erasure through its three doors: DELETE /api/v1/memories/{id} (only for tokens with the
erase right, only inside their scope), `memory erase` (one memory or a whole advertiser)
and the admin action with its confirmation page. After each, search, recall, export and
the memory's own page no longer have it, and the same text is refused."""

import json

import pytest
from django.urls import reverse

from api.services import api_token_create
from governance.models import AuditLog, MemoryEvent
from memories.models import Memory, Tombstone
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db

TEXT = "用户纠正：brand_A 乌梅汤礼盒 sparrowK9 计划晚间出价上调 8%，以后都按这个执行"


def _client(name, advertisers=None, *, erase=False, all_advertisers=False):
    _, raw = api_token_create(name=name, advertisers=advertisers, all_advertisers=all_advertisers, can_erase=erase, created_by_name="test")
    return ApiClient(raw)


def _delete(client, memory_id, reason="客户要求删除这条记忆"):
    return client.client.delete(
        f"/api/v1/memories/{memory_id}", data=json.dumps({"reason": reason}), content_type="application/json", **client._headers(None)
    )


@pytest.fixture
def written(ingest, no_sampled_audit):
    decision = ingest(text=TEXT, advertiser="brand_A", source="user", layer="L2")
    assert decision.action == "WRITE", decision
    return Memory.objects.get(pk=decision.memory_id)


def test_a_token_without_the_erase_right_gets_403_and_nothing_changes(written):
    response = _delete(_client("plain-a", ["brand_A"]), written.pk)
    assert response.status_code == 403
    assert "erase right" in response.json()["detail"]
    assert Memory.objects.filter(pk=written.pk).exists() and not Tombstone.objects.exists()


def test_another_advertisers_memory_answers_404(written):
    response = _delete(_client("eraser-b", ["brand_B"], erase=True), written.pk)
    assert response.status_code == 404
    assert Memory.objects.filter(pk=written.pk).exists()


def test_a_reason_is_required(written):
    eraser = _client("eraser-a0", ["brand_A"], erase=True)
    assert _delete(eraser, written.pk, reason="   ").status_code == 422
    assert Memory.objects.filter(pk=written.pk).exists()


def test_erase_through_the_api_leaves_a_tombstone_and_the_text_is_refused_after(written):
    eraser = _client("eraser-a", ["brand_A"], erase=True)
    response = _delete(eraser, written.pk)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["erased"] == 1 and body["tombstone"]["memory_id"] == written.pk
    # The same report the CLI prints: nothing left unchecked, and what reached the disk.
    assert body["unreadable_task_payloads"] == 0 and body["unreadable_task_ids"] == []
    assert set(body["storage"]) >= {"vendor", "vacuumed", "wal_truncated"}
    stone = Tombstone.objects.get(memory_id=written.pk)
    assert (stone.erased_by, stone.reason, stone.layer, stone.advertiser) == ("token:eraser-a", "客户要求删除这条记忆", "L2", "brand_A")
    assert AuditLog.objects.filter(event_type="memory.erase").exists()

    assert eraser.get(f"/memories/{written.pk}").status_code == 404
    found = eraser.post("/search", {"query": "乌梅汤礼盒 sparrowK9 晚间出价"}).json()
    assert "sparrowK9" not in json.dumps(found["results"], ensure_ascii=False)
    recalled = eraser.post("/recall", {"query": "乌梅汤礼盒 sparrowK9", "force": True}).json()
    assert "sparrowK9" not in recalled["context"] + json.dumps(recalled["memories"], ensure_ascii=False)
    event = MemoryEvent.objects.get()
    assert "sparrowK9" not in event.raw_text and event.source_turns == [] and event.data == {}

    again = eraser.post("/ingest", {"text": TEXT, "source": "user"})
    assert again.status_code == 409
    assert f"tombstone #{stone.pk}" in again.json()["detail"]
    # The refusal stored nothing: no second event holds the words.
    assert MemoryEvent.objects.count() == 1


def test_the_same_text_from_another_advertiser_is_not_refused(written, ingest):
    _delete(_client("eraser-a2", ["brand_A"], erase=True), written.pk)
    other = ingest(text=TEXT.replace("brand_A", "brand_B"), advertiser="brand_B", source="user", layer="L2")
    assert other.action != "REJECT" or all("erased" not in r for r in other.reasons)


def test_cli_erase_of_a_whole_advertiser_and_export_no_longer_has_it(written, make_memory, cli, tmp_path):
    make_memory("brand_A 绿豆糕 finchT3 计划 ROI 低于 1.3 时暂停", advertiser="brand_A")
    keep = make_memory("brand_B 美妆 ROI 低于 1.5 时出价下调 10%", advertiser="brand_B")
    code, body, err = cli("erase", "--advertiser", "brand_A", "--reason", "客户解约，全部删除", "--json")
    assert code == 0, err
    assert body["erased"] == 2 and {t["advertiser"] for t in body["tombstones"]} == {"brand_A"}
    assert list(Memory.objects.values_list("pk", flat=True)) == [keep.pk]
    out = tmp_path / "export.jsonl"
    assert cli("export", "--output", str(out), "--json")[0] == 0
    exported = out.read_text(encoding="utf-8")
    assert "finchT3" not in exported and "sparrowK9" not in exported and "brand_B 美妆" in exported


def test_cli_erase_needs_an_id_or_an_advertiser_and_a_reason(written, cli):
    code, _, err = cli("erase", "--reason", "x", "--json")
    assert code != 0 and "either a memory id or --advertiser" in err
    code, _, err = cli("erase", "999999", "--reason", "不存在", "--json")
    assert code != 0 and "not found" in err and "Traceback" not in err


def test_a_reimport_of_erased_text_is_refused_with_the_line_named(written, cli, tmp_path):
    cli("erase", str(written.pk), "--reason", "误存了客户内部口径", "--json")
    line = {"layer": "L2", "content": written.content, "advertiser": "brand_A", "source": "human"}
    path = tmp_path / "restore.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    code, _, err = cli("import", str(path), "--json")
    assert code != 0 and "line 1:" in err and "tombstone #" in err
    assert not Memory.objects.exists()


def test_the_admin_action_asks_for_confirmation_then_erases(written, admin_client):
    url = reverse("admin:memories_memory_changelist")
    asked = admin_client.post(url, {"action": "erase_selected", "_selected_action": [written.pk]})
    assert asked.status_code == 200
    page = asked.content.decode()
    assert 'id="erase-form"' in page and "cannot be undone" in page
    assert Memory.objects.filter(pk=written.pk).exists()
    missing = admin_client.post(url, {"action": "erase_selected", "_selected_action": [written.pk], "apply": "1", "reason": ""})
    assert missing.status_code == 200 and Memory.objects.filter(pk=written.pk).exists()
    done = admin_client.post(
        url, {"action": "erase_selected", "_selected_action": [written.pk], "apply": "1", "reason": "运营发现误存的密钥"}
    )
    assert done.status_code == 302
    assert not Memory.objects.filter(pk=written.pk).exists()
    assert Tombstone.objects.get(memory_id=written.pk).erased_by == "admin:admin"


def test_erasing_an_advertiser_with_hundreds_of_memories_sweeps_in_batches(written, cli):
    # Each memory's words become needles in two written forms: one OR over all of them
    # would pass SQLite's limit of 1,000 terms in an expression.
    from memories.storage import memory_create

    for i in range(300):
        memory_create(
            content=f"brand_A 第{i}号门店 storeK{i:03d}x 周末晚间出价上调 {i % 9 + 1}%", layer="L2", advertiser="brand_A", embed=False
        )
    code, body, err = cli("erase", "--advertiser", "brand_A", "--reason", "客户解约，全部删除", "--json")
    assert code == 0, err
    assert body["erased"] == 301
    assert not Memory.objects.filter(advertiser="brand_A").exists()
