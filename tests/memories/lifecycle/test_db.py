"""Short batches that retry on a busy database, and only where a retry can help."""

import pytest
from django.db import OperationalError, transaction

from governance.models import Trace
from memories.lifecycle.db import atomic_batch, chunks


def test_a_busy_database_is_retried_and_the_batch_lands_once(transactional_db):
    calls = []

    def batch():
        calls.append(1)
        Trace.objects.create(stage="lifecycle.test", decision=f"attempt {len(calls)}")
        if len(calls) < 3:
            raise OperationalError("database is locked")
        return "done"

    assert atomic_batch(batch, base_delay=0.001) == "done"
    assert len(calls) == 3
    # The failed attempts rolled back: only the successful one left a row.
    assert list(Trace.objects.filter(stage="lifecycle.test").values_list("decision", flat=True)) == ["attempt 3"]


def test_other_errors_and_exhausted_retries_propagate(transactional_db):
    def broken():
        raise OperationalError("no such table: nowhere")

    with pytest.raises(OperationalError, match="no such table"):
        atomic_batch(broken)

    attempts = []

    def always_busy():
        attempts.append(1)
        raise OperationalError("database is locked")

    with pytest.raises(OperationalError, match="locked"):
        atomic_batch(always_busy, attempts=3, base_delay=0.001)
    assert len(attempts) == 3


def test_inside_an_outer_transaction_there_is_no_retry(transactional_db):
    attempts = []

    def busy():
        attempts.append(1)
        raise OperationalError("database is locked")

    with pytest.raises(OperationalError):
        with transaction.atomic():
            atomic_batch(busy, base_delay=0.001)
    assert len(attempts) == 1


def test_chunks_cover_every_id_once():
    ids = list(range(7))
    assert list(chunks(ids, 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(chunks([], 3)) == []
