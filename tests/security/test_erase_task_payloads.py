"""django-q keeps task results and arguments pickled. One that no longer unpickles (here:
a report object whose class was renamed since) cannot be searched for an erased memory's
words; the erase must say so, by task id, in its report, its audit row and the log,
without repeating the payload, and still scrub the tasks it can read."""

from __future__ import annotations

import base64
import json
import logging
import pickle
import sys
import types
import uuid

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import Task

from api.services import api_token_create
from governance.constants import AuditEvent
from governance.models import AuditLog
from governance.write.erase import memory_erase
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db

CONTENT = "brand_A 青柠计划 nightjarQ7 晚间21点后出价上调12%，以后都这样执行 (night bids +12%)"
REASON = "客户依 PIPL 要求删除"


def _task(result) -> str:
    now = timezone.now()
    task_id = uuid.uuid4().hex
    Task.objects.create(
        id=task_id, name=f"reflect-{task_id[:6]}", func="lingix_site.tasks.reflect", started=now, stopped=now, success=True, result=result
    )
    return task_id


def _unpicklable_payload(quoting: str) -> str:
    """What django-q stored for a result object whose class no longer exists: base64 of
    its pickle (the same form the field writes), which still holds the quoted words."""
    module = types.ModuleType("lingix_reports_renamed_since")

    class StaleReport:
        def __init__(self, quote: str) -> None:
            self.quote = quote

    StaleReport.__module__, StaleReport.__qualname__ = module.__name__, "StaleReport"
    module.StaleReport = StaleReport  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        return base64.b64encode(pickle.dumps(StaleReport(quoting), protocol=pickle.HIGHEST_PROTOCOL)).decode()
    finally:
        del sys.modules[module.__name__]


@pytest.fixture
def memory_and_tasks(make_memory):
    memory = make_memory(CONTENT, advertiser="brand_A", source="user")
    readable = _task({"stale": [{"id": memory.pk, "content": CONTENT}]})
    unreadable = _task(None)
    payload = _unpicklable_payload(CONTENT)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {Task._meta.db_table} SET result = %s WHERE id = %s", [payload, unreadable])
    return memory, readable, unreadable, payload


def test_an_unreadable_task_payload_is_counted_and_named_and_the_readable_one_is_scrubbed(memory_and_tasks, caplog):
    memory, readable, unreadable, payload = memory_and_tasks

    with caplog.at_level(logging.WARNING, logger="governance.write.erase"):
        report = memory_erase(memory_id=memory.pk, reason=REASON, actor="operator").as_dict()

    assert report["erased"] == 1
    assert report["unreadable_task_payloads"] == 1 and report["unreadable_task_ids"] == [unreadable]
    assert "青柠计划" not in repr(Task.objects.get(id=readable).result)
    audit = AuditLog.objects.filter(event_type=AuditEvent.MEMORY_ERASE).latest("pk")
    assert audit.extra_data["unreadable_task_payloads"] == 1 and audit.extra_data["unreadable_task_ids"] == [unreadable]
    warnings = [r.getMessage() for r in caplog.records if r.name == "governance.write.erase"]
    assert len(warnings) == 1 and unreadable in warnings[0]
    # Neither the report, the audit row nor the log repeats the payload or its words.
    for text in (repr(report), repr(audit.extra_data), warnings[0]):
        assert payload[:40] not in text and "青柠计划" not in text


def test_the_cli_tells_the_operator_which_tasks_were_not_checked(memory_and_tasks, cli):
    memory, _, unreadable, _ = memory_and_tasks

    code, out, err = cli("erase", str(memory.pk), "--reason", REASON)

    assert code == 0, err
    assert "1 django-q task payload(s) could not be unpickled" in out and unreadable in out


@pytest.mark.parametrize("every_advertiser", [False, True], ids=["scoped token", "token of every advertiser"])
def test_the_api_reply_carries_the_same_figures_as_the_service(memory_and_tasks, every_advertiser):
    memory, _, unreadable, payload = memory_and_tasks
    scope = {"all_advertisers": True} if every_advertiser else {"advertisers": ["brand_A"]}
    _, raw = api_token_create(name="eraser-qingning", can_erase=True, created_by_name="test", **scope)
    client = ApiClient(raw)

    response = client.client.delete(
        f"/api/v1/memories/{memory.pk}", data=json.dumps({"reason": REASON}), content_type="application/json", **client._headers(None)
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["erased"] == 1 and body["tombstone"]["memory_id"] == memory.pk
    # The task rows are the whole system's: a token scoped to some advertisers hears how many
    # could not be read, not which; the audit row keeps them for the operator.
    assert body["unreadable_task_payloads"] == 1
    assert body["unreadable_task_ids"] == ([unreadable] if every_advertiser else [])
    assert body["storage"]["vendor"] == connection.vendor and isinstance(body["storage"]["vacuumed"], bool)
    audit = AuditLog.objects.filter(event_type=AuditEvent.MEMORY_ERASE).latest("pk")
    assert audit.extra_data["unreadable_task_ids"] == [unreadable]
    assert payload[:40] not in response.content.decode() and "青柠计划" not in response.content.decode()


def test_an_erase_with_every_payload_readable_reports_none(make_memory):
    memory = make_memory(CONTENT, advertiser="brand_A", source="user")
    _task({"stale": [{"id": memory.pk, "content": CONTENT}]})

    report = memory_erase(memory_id=memory.pk, reason=REASON, actor="operator").as_dict()

    assert report["unreadable_task_payloads"] == 0 and report["unreadable_task_ids"] == []
    assert "unreadable_task_payloads" not in AuditLog.objects.filter(event_type=AuditEvent.MEMORY_ERASE).latest("pk").extra_data
