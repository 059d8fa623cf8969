"""memory backup / restore on SQLite through the online backup API."""

import sqlite3

import pytest
from django.core.management import call_command
from django.db import connection

from lingix_site.backup import database_backup, database_restore
from memories.exceptions import InvalidInput
from memories.models import Memory
from memories.selectors import memory_search

pytestmark = pytest.mark.django_db(transaction=True)


def test_backup_then_restore_brings_back_memories_and_keyword_index(make_memory, tmp_path):
    kept = make_memory("brand_A 医药OTC 冷启动三阶段出价，目标ROI 3.0", advertiser="brand_A")
    target = tmp_path / "lingix-backup.db"
    report = database_backup(path=str(target))
    assert report["bytes"] > 0

    make_memory("备份之后才写入的预算规则", layer="L1")
    Memory.objects.filter(pk=kept.pk).update(content="被改写的内容")
    result = database_restore(path=str(target), actor="test")

    assert result["memories"] == 1
    assert Memory.objects.get(pk=kept.pk).content.startswith("brand_A 医药OTC")
    hits = memory_search(query="冷启动 出价", advertisers=("brand_A",), top_k=5)
    assert [r.memory.pk for r in hits.results] == [kept.pk]


def test_backup_refuses_to_overwrite(tmp_path, db):
    target = tmp_path / "exists.db"
    target.write_text("x")
    with pytest.raises(InvalidInput, match="exists"):
        database_backup(path=str(target))


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path, make_memory):
    make_memory("大促预算上调20%")
    bogus = tmp_path / "other.db"
    sqlite3.connect(bogus).execute("CREATE TABLE t (x)").connection.commit()
    expected = "not a Lingix Memory backup" if connection.vendor == "sqlite" else "not a pg_dump archive"
    with pytest.raises(InvalidInput, match=expected):
        database_restore(path=str(bogus), actor="test")
    text = tmp_path / "notes.txt"
    text.write_text("出价策略" * 100, encoding="utf-8")
    with pytest.raises(InvalidInput):
        database_restore(path=str(text), actor="test")
    assert Memory.objects.count() == 1


def test_restore_cli_needs_confirmation(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "restore", str(tmp_path / "x.db"))
    assert exit_info.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--yes" in err[0]


def test_a_sqlite_restore_gives_the_database_a_new_vector_file_token(make_memory, tmp_path):
    """The shared vector file trusts a database by this token: after a restore, a file
    written on the history the restore threw away must be replaced, not read."""
    if connection.vendor != "sqlite":
        pytest.skip("the shared vector file sits beside a SQLite database")

    def token() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT token FROM memories_vectorfile WHERE id = 1")
            return cursor.fetchone()[0]

    make_memory("品牌专区 出价 备份前写入", advertiser="brand_A")
    before = token()
    target = tmp_path / "lingix-backup.db"
    database_backup(path=str(target))
    database_restore(path=str(target), actor="test")
    after = token()
    assert len(after) == 32 and after != before
    assert sqlite3.connect(target).execute("SELECT token FROM memories_vectorfile").fetchone()[0] == before
