"""Erasure, read back column by column on whichever database runs the suite (SQLite, or
PostgreSQL under scripts/with_postgres.py): a memory with a conversation source, two
versions (the second an operator's edit in the admin, so Django's admin log has it too),
review history with a note, and a scheduled reflection that quotes it (django-q's task
row) is erased with `memory erase ID` (or its whole advertiser with `memory erase
--advertiser`); then every text, JSON, bytea, tsvector and vector column of every table is
read as text and holds none of its words, django-q's pickled task results hold none
either, and no vector column holds its embedding. tests/security/test_erase_files.py reads
SQLite's files as bytes; this one reads what any query could still return."""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from django_q.models import Task
from django_q.tasks import async_task

from governance.models import LayerPolicy, ReviewItem
from governance.review.services import review_approve
from memories.embeddings.store import embed_backfill, memory_vectors
from memories.models import Memory, Tombstone

pytestmark = pytest.mark.django_db

# Words that exist only in this memory, its source turns, its edit and its review note.
MARKERS = ["青柠计划", "夜莺口径", "nightjarQ7", "上调12%", "上调15%"]
ASSISTANT = "要不要把 brand_A 青柠计划 的 nightjarQ7 出价口径记下来：晚间21点后出价上调12%？"
USER = "对，就按这个记：青柠计划 nightjarQ7 晚间21点后出价上调12%，以后都这样执行"
EDITED = "青柠计划 nightjarQ7 晚间21点后出价上调15%（夜莺口径）"
REASON = "客户依 PIPL 要求删除"

# information_schema's names for the types a word can be kept in (vector is pgvector's).
PG_TYPES = ("text", "character varying", "character", "json", "jsonb", "bytea", "tsvector")


def _forms(word: str) -> set[str]:
    """The word as stored: as written, JSON-escaped (SQLite's JSON is ensure_ascii), and
    lower-cased (a tsvector keeps lexemes in lower case)."""
    out = set()
    for form in (word, json.dumps(word)[1:-1]):
        out |= {form, form.lower()}
    return out


def _columns() -> list[tuple[str, str, str]]:
    """(table, column, type) of every column that can hold a word."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT table_name, column_name, CASE WHEN data_type = 'USER-DEFINED' THEN udt_name ELSE data_type END "
                "FROM information_schema.columns c WHERE table_schema = 'public' "
                "AND (data_type = ANY(%s) OR udt_name = 'vector') "
                "AND EXISTS (SELECT 1 FROM information_schema.tables t WHERE t.table_schema = 'public' "
                "AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE') ORDER BY 1, 2",
                [list(PG_TYPES)],
            )
            return [tuple(row) for row in cursor.fetchall()]
        # SQLite keeps any value in any column: every column of every table, the FTS5
        # shadow tables (the index's own pages) included.
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        tables = [row[0] for row in cursor.fetchall()]
        out = []
        for table in tables:
            cursor.execute(f"SELECT name, type FROM pragma_table_info('{table}')")
            out += [(table, name, kind or "any") for name, kind in cursor.fetchall()]
        return out


def _as_text(value) -> str:
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    return "" if value is None else str(value)


def _left(markers: list[str]) -> dict[str, list[str]]:
    """{"table.column": [marker, …]} for every column that still holds a marker."""
    found: dict[str, list[str]] = {}
    with connection.cursor() as cursor:
        for table, column, kind in _columns():
            if kind == "vector":
                continue
            if connection.vendor == "postgresql":
                # bytea reads back as bytes, so its UTF-8 text is looked at, not its hex.
                expr = f'"{column}"' if kind == "bytea" else f'"{column}"::text'
                cursor.execute(f'SELECT {expr} FROM "{table}" WHERE "{column}" IS NOT NULL')
            else:
                cursor.execute(f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL')
            values = [_as_text(row[0]) for row in cursor.fetchall()]
            hits = [m for m in markers if any(f in v for v in values for f in _forms(m))]
            if hits:
                found[f"{table}.{column}"] = hits
    return found


def _vectors_holding(embeddings: list[bytes]) -> list[str]:
    """Columns that still hold one of these embeddings: pgvector's columns compared as
    vectors, and the float32 bytes anywhere (a BLOB on SQLite, bytea on PostgreSQL)."""
    found: set[str] = set()
    with connection.cursor() as cursor:
        for table, column, kind in _columns():
            if kind == "vector":
                for raw in embeddings:
                    literal = "[" + ",".join(repr(float(x)) for x in np.frombuffer(raw, dtype="<f4")) + "]"
                    cursor.execute(f'SELECT count(*) FROM "{table}" WHERE "{column}" = %s::vector', [literal])
                    if cursor.fetchone()[0]:
                        found.add(f"{table}.{column}")
            elif kind in ("bytea", "BLOB", "any", ""):
                cursor.execute(f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL')
                for (value,) in cursor.fetchall():
                    if isinstance(value, (bytes, memoryview)) and any(raw in bytes(value) for raw in embeddings):
                        found.add(f"{table}.{column}")
                        break
    return sorted(found)


def _task_results_holding(markers: list[str]) -> dict[str, list[str]]:
    """django-q's task rows keep results and arguments pickled (base64 text on SQLite, so a
    column read does not see the words): read through the model, which unpickles them."""
    found: dict[str, list[str]] = {}
    for task in Task.objects.all():
        text = repr((task.result, task.args, task.kwargs))
        hits = [m for m in markers if m in text]
        if hits:
            found[f"django_q_task#{task.id}"] = hits
    return found


@pytest.fixture(params=["memory", "advertiser"])
def erased(request, ingest, cli, operator, operator_client):
    # Every L2 write is sampled for audit, so the memory has review history.
    LayerPolicy.objects.filter(layer="L2").update(sampled_audit_rate=1.0)
    messages = [{"role": "assistant", "content": ASSISTANT}, {"role": "user", "content": USER}]
    first = ingest(None, messages=messages, advertiser="brand_A", layer="L2", actor="token:agent-a")
    assert first.action == "WRITE", first

    # The second version is an operator's edit on the admin's explicit edit page.
    url = reverse("admin:memories_memory_change", args=[first.memory_id]) + "?edit=1"
    form = operator_client.get(url).context["adminform"].form
    data = {name: (form.initial.get(name) if form.initial.get(name) is not None else "") for name in form.fields}
    data.update(content=EDITED, edit_note="按客户口径改成夜莺口径 15%")
    assert operator_client.post(url, data).status_code == 302
    newer = Memory.objects.get(supersedes_id=first.memory_id)
    embed_backfill()
    for item in ReviewItem.objects.filter(status="open"):
        review_approve(
            item=item, reviewer=operator, reviewer_name=operator.username, note="核对过：青柠计划 nightjarQ7 夜莺口径无误", operator=True
        )

    # A scheduled reflection run through django-q (sync in the test settings) finds the
    # memory stale once it is old and unimportant, and its pickled result quotes it.
    Memory.objects.filter(pk=newer.pk).update(created_at=timezone.now() - timedelta(days=200), importance=0.5, last_accessed_at=None)
    assert Task.objects.get(id=async_task("lingix_site.tasks.reflect")).success

    versions = list(Memory.objects.filter(pk__in=[first.memory_id, newer.pk]).order_by("pk"))
    embeddings = [v.tobytes() for v in memory_vectors(versions) if v is not None]
    before = {"versions": len(versions), "review_items": ReviewItem.objects.count(), "embeddings": len(embeddings)}
    seen_before = {**_left(MARKERS), **_task_results_holding(MARKERS)}
    vectors_before = _vectors_holding(embeddings)

    # One memory by its id, or the whole tenant.
    target = [str(newer.pk)] if request.param == "memory" else ["--advertiser", "brand_A"]
    code, body, err = cli("erase", *target, "--reason", REASON, "--as", operator.username, "--json")
    assert code == 0, err
    return {
        "before": before,
        "seen_before": seen_before,
        "vectors_before": vectors_before,
        "embeddings": embeddings,
        "body": body,
        "messages": messages,
    }


def test_no_column_of_any_table_keeps_a_word_or_the_vector_of_the_erased_memory(erased):
    # The controls: the words and the vectors were there, or finding none after means nothing.
    # Review items: the sampled audit of the write, and the reflection's stale finding.
    assert erased["before"] == {"versions": 2, "review_items": 2, "embeddings": 2}
    seen = {m for hits in erased["seen_before"].values() for m in hits}
    assert seen == set(MARKERS), erased["seen_before"]
    assert any(k.startswith("django_q_task#") for k in erased["seen_before"]), erased["seen_before"]
    assert erased["vectors_before"], "the embedding was never found before the erase"

    assert erased["body"]["erased"] == 2
    assert _left(MARKERS) == {}
    assert _task_results_holding(MARKERS) == {}
    assert _vectors_holding(erased["embeddings"]) == []


def test_a_tombstone_per_version_names_who_and_why_and_the_conversation_is_refused_again(erased, ingest, operator):
    stones = list(Tombstone.objects.values_list("erased_by", "reason", "layer", "advertiser"))
    assert len(stones) == 2
    assert set(stones) == {(f"cli:{operator.username}", REASON, "L2", "brand_A")}

    from governance.write.erase import ErasedContent

    with pytest.raises(ErasedContent, match=r"tombstone #\d+.*客户依 PIPL 要求删除"):
        ingest(None, messages=erased["messages"], advertiser="brand_A", layer="L2", actor="token:agent-a")
    assert _left(MARKERS) == {}
