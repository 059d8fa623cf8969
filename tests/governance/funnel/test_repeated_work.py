"""The funnel does each piece of work once per decision: a proposal is embedded once (and a
repeated one not again), the traces of a decision are written in bulk and in stage order,
and a memory row's CHECK constraints are left to the insert that enforces them."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from governance.funnel.related import find_related
from governance.funnel.types import Candidate
from governance.intake.services import decision_for_event, event_ingest
from governance.models import MemoryEvent, Trace
from memories.embeddings import get_embedder
from memories.embeddings.passage_cache import passage_vectors
from memories.embeddings.store import embedding_text, memory_vectors, stored_vectors
from memories.models import Memory
from memories.storage import memory_create

pytestmark = pytest.mark.django_db

RULE = "用户纠正：brand_A 感冒药计划出价不要超过1.5元，以后按这个执行"


def test_a_repeated_proposal_is_not_embedded_again(no_sampled_audit, django_capture_on_commit_callbacks):
    memory_create(content="用户确认：brand_A 口红素材只投女性人群", layer="L2", advertiser="brand_A", embed=False)
    passage_vectors.clear()
    with django_capture_on_commit_callbacks(execute=True):
        first = event_ingest(text=RULE, advertiser="brand_A", source="user", actor="token:a")
    assert first.action == "WRITE", first.reasons
    embedded = passage_vectors.misses
    assert embedded >= 1  # the proposal (and the neighbour that had no vector yet)
    with django_capture_on_commit_callbacks(execute=True):
        again = event_ingest(text=RULE, advertiser="brand_A", source="user", actor="token:a")
    assert again.action == "REJECT" and f"#{first.memory_id}" in again.reasons[0], again.reasons
    assert passage_vectors.misses == embedded, "the same text was embedded twice"
    assert passage_vectors.hits >= 1


def test_the_written_memory_keeps_the_vector_of_its_own_text(no_sampled_audit, django_capture_on_commit_callbacks):
    memory_create(content="用户确认：brand_A 口红素材只投女性人群", layer="L2", advertiser="brand_A", embed=False)
    with django_capture_on_commit_callbacks(execute=True):
        decision = event_ingest(text=RULE, advertiser="brand_A", source="user", actor="token:a")
    memory = Memory.objects.get(pk=decision.memory_id)
    (stored,) = memory_vectors([memory])
    fresh = get_embedder().embed_passages([embedding_text(memory)])[0]
    assert float(stored @ fresh) > 0.999


def test_traces_are_written_in_bulk_in_stage_order(no_sampled_audit):
    memory_create(content="用户确认：brand_A 口红素材只投女性人群", layer="L2", advertiser="brand_A", embed=False)
    with CaptureQueriesContext(connection) as queries:
        decision = event_ingest(text=RULE, advertiser="brand_A", source="user", actor="token:a")
    assert decision.action == "WRITE", decision.reasons
    rows = list(Trace.objects.filter(event_id=decision.event_id).order_by("seq"))
    assert [t.seq for t in rows] == list(range(len(rows)))
    assert [t.stage for t in rows] == [s["stage"] for s in decision.stages]
    assert {"judge", "conflict", "decision"} <= {t.stage for t in rows}
    inserts = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('INSERT INTO "governance_trace"')]
    # The stages before the event row exists wait for those inside the write transaction: one insert.
    assert len(inserts) == 1, inserts


@pytest.mark.parametrize(
    ("text", "source", "action"),
    [
        (RULE, "user", "WRITE"),
        ("用户说：brand_A 口红计划出价不要超过1.5元", "user", "PENDING_REVIEW"),
        ("好的，谢谢 thanks", "user", "REJECT"),
    ],
)
def test_the_decision_returned_is_the_one_stored(no_sampled_audit, text, source, action):
    """The decision is built from the rows the funnel just wrote, not read back: it must
    equal what reading the event again gives (as a replay does)."""
    # A rule the operator set: a user saying otherwise is parked for a person, not a new version.
    memory_create(
        content="公司规定：brand_A 口红计划出价不要超过2元",
        layer="L2",
        advertiser="brand_A",
        source_attribution="human_config",
        grounding="grounded",
        embed=False,
    )
    with CaptureQueriesContext(connection) as queries:
        decision = event_ingest(text=text, advertiser="brand_A", source=source, actor="token:a")
    assert decision.action == action, decision.reasons
    event_reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('SELECT "governance_memoryevent"')]
    assert event_reads == [], "the event row was read back"
    stored = decision_for_event(MemoryEvent.objects.get(pk=decision.event_id))
    assert decision == stored
    if action == "PENDING_REVIEW":
        assert decision.review_item_id is not None


def test_an_out_of_range_memory_is_refused_by_the_table():
    with pytest.raises(IntegrityError), transaction.atomic():
        memory_create(content="预算上限 3000 元", layer="L2", importance=11, embed=False)
    with pytest.raises(IntegrityError), transaction.atomic():
        memory_create(content="预算上限 3000 元", layer="L2", confidence=1.5, embed=False)
    assert not Memory.objects.exists()


@pytest.mark.skipif(connection.vendor != "sqlite", reason="reads SQLite's query plans")
def test_the_neighbour_lookup_asks_its_own_indexes_not_the_whole_scope(no_sampled_audit):
    """Joined with the scope (or ordered newest first), the planner walked the scope index or
    the dates and read every row of the advertiser's store, on every decision."""
    for i in range(5):
        memory_create(content=f"brand_A 感冒药计划第{i}周CTR为{i}.5%", layer="L2", advertiser="brand_A", embed=False)
    with CaptureQueriesContext(connection) as captured:
        event_ingest(text=RULE, advertiser="brand_A", source="user", actor="token:a")
    lookups = {
        "mem_embedding_model_idx": [q["sql"] for q in captured if '"embedding_model" <' in q["sql"]],
        "content_hash": [q["sql"] for q in captured if '"content_hash" =' in q["sql"] and "INSERT" not in q["sql"]],
    }
    for index, queries in lookups.items():
        assert queries, index
        with connection.cursor() as cursor:
            for sql in queries:
                cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
                plan = " ".join(str(row[-1]) for row in cursor.fetchall())
                assert index in plan and "created_at" not in plan and "mem_scope_idx" not in plan, plan


def _vector_reads(captured: CaptureQueriesContext) -> list[str]:
    """Queries that read stored vectors (not the index search, which compares in SQL)."""
    sql = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("SELECT")]
    return [s for s in sql if "embedding_vec" in s and "<=>" not in s]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the vectors live in pgvector's column on PostgreSQL")
def test_the_neighbours_come_back_with_their_vectors_in_one_query(no_sampled_audit, make_memory):
    """The vector is not a field of the row on PostgreSQL; read after the rows, it was a
    second query in every lookup, and a decision makes two (the funnel's, and the conflict
    stage's refresh inside the write transaction)."""
    for i in range(5):
        make_memory(f"brand_A 感冒药计划第{i}周CTR为{i}.5%", advertiser="brand_A")
    c = Candidate(content=RULE, trigger_type="correction", source="user", layer="L2", advertiser="brand_A")
    with CaptureQueriesContext(connection) as captured:
        found = find_related(c)
    assert found
    lookups = [q["sql"] for q in captured.captured_queries if "memories_memory" in q["sql"]]
    # Anything in scope, rows without a current vector, rows with this text, the index once per
    # layer compared (the proposal's own and the L1 rules), the rows.
    assert len(lookups) == 6, lookups
    (read,) = _vector_reads(captured)
    assert '"memories_memory"."content"' in read, read
    stored = stored_vectors([n["memory"].pk for n in found])
    for neighbour in found:
        assert neighbour["cosine"] == round(float(stored[neighbour["memory"].pk] @ c.probe), 4)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the vectors live in pgvector's column on PostgreSQL")
def test_a_decision_reads_no_vector_apart_from_its_row(no_sampled_audit, make_memory):
    make_memory("用户确认：brand_A 感冒药计划出价上限为2元", advertiser="brand_A")
    waiting = make_memory("brand_A 感冒药计划出价不要超过1.8元 (bid cap)", advertiser="brand_A", embed=False)
    with CaptureQueriesContext(connection) as captured:
        decision = event_ingest(text=RULE, advertiser="brand_A", source="user", actor="token:a")
    assert decision.action in {"WRITE", "UPDATE", "PENDING_REVIEW"}, decision.reasons
    reads = _vector_reads(captured)
    assert len(reads) == 2, reads
    assert all('"memories_memory"."content"' in sql for sql in reads), reads
    # The neighbour without a vector was embedded by the first lookup and kept.
    assert waiting.pk in stored_vectors([waiting.pk])


def test_the_commit_step_is_timed_in_its_trace(no_sampled_audit):
    decision = event_ingest(text=RULE, advertiser="brand_A", source="user", actor="token:a")
    assert decision.action == "WRITE", decision.reasons
    commit = Trace.objects.get(event_id=decision.event_id, stage="decision")
    assert commit.latency_ms > 0
