"""Each memory vector is stored once: float32 bytes on SQLite, pgvector's column on
PostgreSQL (bytes NULL), and every reader gets it through memories.embeddings.store.
Runs on both backends; the PostgreSQL cases run under scripts/with_postgres.py."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.embeddings import get_embedder
from memories.embeddings.store import (
    embed_backfill,
    embedding_text,
    memory_vectors,
    stale_embedding_q,
    stored_vectors,
    with_vectors,
)
from memories.models import Memory

pytestmark = pytest.mark.django_db
postgres_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="the vector column is PostgreSQL's")

single_copy = importlib.import_module("memories.migrations.0011_postgres_vector_single_copy")


def _columns(memory_id: int) -> tuple[bool, bool]:
    """(bytes stored, pgvector column filled) for one row, read in SQL."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT embedding IS NOT NULL, embedding_vec IS NOT NULL FROM memories_memory WHERE id = %s", [memory_id])
        return cursor.fetchone()


def test_the_vector_read_back_is_the_one_the_embedder_made(make_memory):
    memory = make_memory("用户确认：brand_A 口红素材只投女性人群 (female audience only)", advertiser="brand_A")
    fresh = get_embedder().embed_passages([embedding_text(memory)])[0].astype(np.float32)

    (stored,) = memory_vectors([Memory.objects.get(pk=memory.pk)])
    assert stored.dtype == np.float32 and np.array_equal(stored, fresh)
    assert np.array_equal(stored_vectors([memory.pk])[memory.pk], fresh)
    embedder = get_embedder()
    assert list(stored_vectors([memory.pk], model_name=embedder.model_name, dimension=embedder.dimension)) == [memory.pk]
    assert stored_vectors([memory.pk], model_name="另一个模型 other-model") == {}
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT embedding IS NULL, embedding_vec IS NOT NULL FROM memories_memory WHERE id = %s", [memory.pk])
            assert cursor.fetchone() == (True, True)
    else:
        assert bytes(Memory.objects.get(pk=memory.pk).embedding) == fresh.tobytes()


def test_a_memory_without_a_vector_is_stale_until_the_backfill(make_memory):
    waiting = make_memory("冷启动期前三天不宜频繁调价", advertiser="brand_A", embed=False)
    done = make_memory("周末女性人群定向效果好", advertiser="brand_A")
    assert memory_vectors([Memory.objects.get(pk=waiting.pk)]) == [None]
    assert list(Memory.objects.filter(stale_embedding_q()).values_list("id", flat=True)) == [waiting.pk]

    assert embed_backfill()["embedded"] == 1
    assert not Memory.objects.filter(stale_embedding_q()).exists()
    assert memory_vectors([Memory.objects.get(pk=waiting.pk)])[0] is not None
    assert done.pk in stored_vectors([waiting.pk, done.pk])


def test_rows_read_with_their_vectors_need_no_second_query(make_memory):
    embedded = make_memory("brand_A 口红计划周末女性人群CTR为2.5% (weekend CTR)", advertiser="brand_A")
    waiting = make_memory("brand_A 冷启动期前三天不宜频繁调价", advertiser="brand_A", embed=False)
    rows = list(with_vectors(Memory.objects.filter(advertiser="brand_A").order_by("id")))
    with CaptureQueriesContext(connection) as captured:
        vectors = memory_vectors(rows)
    assert len(captured) == 0, [q["sql"] for q in captured]
    assert np.array_equal(vectors[0], stored_vectors([embedded.pk])[embedded.pk]) and vectors[0].dtype == np.float32
    assert vectors[1] is None and rows[1].pk == waiting.pk
    # Rows read the plain way still get theirs, in one query for all of them on PostgreSQL.
    plain = list(Memory.objects.filter(advertiser="brand_A").order_by("id"))
    with CaptureQueriesContext(connection) as captured:
        again = memory_vectors(plain)
    assert len(captured) == (1 if connection.vendor == "postgresql" else 0)
    assert np.array_equal(again[0], vectors[0]) and again[1] is None


@postgres_only
def test_a_full_save_of_a_loaded_row_keeps_its_vector(make_memory):
    memory = make_memory("信息流素材疲劳周期约为7-10天", advertiser="brand_A")
    before = stored_vectors([memory.pk])[memory.pk]
    loaded = Memory.objects.get(pk=memory.pk)  # `embedding` loaded as NULL and written back as NULL
    loaded.importance = 7
    loaded.save()
    assert _columns(memory.pk) == (False, True)
    assert np.array_equal(stored_vectors([memory.pk])[memory.pk], before)


@postgres_only
def test_bytes_written_by_another_writer_become_the_vector_and_are_cleared(make_memory):
    memory = make_memory("出价上调15%需先报备 (bid raise needs approval)", advertiser="brand_A", embed=False)
    vector = np.random.default_rng(3).normal(size=384).astype(np.float32)
    Memory.objects.filter(pk=memory.pk).update(embedding=vector.tobytes(), embedding_model="m", embedding_dim=384)
    assert _columns(memory.pk) == (False, True)
    assert np.array_equal(stored_vectors([memory.pk])[memory.pk], vector)


@postgres_only
def test_the_migration_clears_the_bytes_of_an_existing_database_and_back(make_memory):
    kept = make_memory("L1：医疗类素材禁止出现疗效承诺", layer="L1")
    later = make_memory("brand_A 双十一预算翻倍", advertiser="brand_A", embed=False)
    vectors = {kept.pk: stored_vectors([kept.pk])[kept.pk]}
    with connection.schema_editor() as editor:
        single_copy.backward(None, editor)
    # Two copies again, as before the migration; a row written then gets both.
    vectors[later.pk] = np.linspace(-1, 1, 384, dtype=np.float32)
    Memory.objects.filter(pk=later.pk).update(embedding=vectors[later.pk].tobytes(), embedding_model="m", embedding_dim=384)
    assert _columns(kept.pk) == _columns(later.pk) == (True, True)
    assert bytes(Memory.objects.get(pk=kept.pk).embedding) == vectors[kept.pk].tobytes()
    # A row with bytes and no vector (which the old trigger never left) is converted too.
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE OR REPLACE FUNCTION memories_memory_vec() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN RETURN NEW; END $fn$"
        )
        cursor.execute("UPDATE memories_memory SET embedding_vec = NULL WHERE id = %s", [later.pk])
    assert _columns(later.pk) == (True, False)

    with connection.schema_editor() as editor:
        single_copy.forward(None, editor)
    for memory_id, vector in vectors.items():
        assert _columns(memory_id) == (False, True)
        assert np.array_equal(stored_vectors([memory_id])[memory_id], vector)
