"""The memories_memory triggers SQLite holds after `migrate`, and those a later migration
that rebuilds the table puts back (memories/migrations/_sqlite_triggers.py): the delete
trigger must keep logging the deleted id (migration 0010), never fall back to 0002's,
which bumped the epoch and made every process reload its whole vector index."""

from importlib import import_module

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

triggers = import_module("memories.migrations._sqlite_triggers")


def _delete_trigger() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'memories_memory_gen_ad'")
        return cursor.fetchone()[0]


@pytest.fixture(autouse=True)
def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("the search-state triggers are SQLite's")


def _logged_delete(make_memory) -> list[int]:
    from memories.storage import memories_delete

    doomed = make_memory("618大促 预算翻倍 临时规则 待删除", advertiser="brand_A")
    memories_delete(memory_ids=[doomed.pk])
    with connection.cursor() as cursor:
        cursor.execute("SELECT memory_id FROM memories_vectordeletion WHERE memory_id = %s", [doomed.pk])
        return [row[0] for row in cursor.fetchall()]


def test_after_migrate_the_delete_trigger_logs_the_deleted_id(make_memory):
    sql = _delete_trigger()
    assert "INSERT INTO memories_vectordeletion" in sql and "epoch = epoch + 1" not in sql
    assert len(_logged_delete(make_memory)) == 1


@pytest.mark.django_db(transaction=True)  # SQLite's schema editor refuses to run inside a transaction
def test_a_later_table_rebuild_puts_back_the_current_triggers(make_memory):
    with connection.schema_editor() as editor:
        triggers.restore_memory_triggers(editor)
    assert "INSERT INTO memories_vectordeletion" in _delete_trigger()
    assert len(_logged_delete(make_memory)) == 1
    # The migrations that ran before 0010 (0005, 0008) still get 0002's list.
    before = {s.split()[2]: s for s in triggers.memory_triggers(deletion_log=False)}
    assert "epoch = epoch + 1" in before["memories_memory_gen_ad"]
    now = {s.split()[2]: s for s in triggers.memory_triggers(deletion_log=True)}
    assert set(now) == set(before) and "memories_vectordeletion" in now["memories_memory_gen_ad"]
