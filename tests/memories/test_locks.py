"""Scoped write locks: a governed write holds its own advertiser's scope and the global
scope shared, so writers for different advertisers run side by side, writers for one
advertiser queue, and a global write waits for all of them (PostgreSQL; SQLite keeps its
single writer and takes nothing here)."""

from __future__ import annotations

import threading

import pytest
from django.db import OperationalError, connection, transaction

from memories.locks import memory_write_lock, scope_key


def test_scope_keys_are_stable_and_never_the_global_key():
    assert scope_key(None) == 0
    assert scope_key("brand_A") == scope_key("brand_A") != scope_key("brand_B")
    assert all(scope_key(code) > 0 for code in ("brand_A", "品牌_甲", "x" * 64))


def _can_lock_while_held(held: list[str | None], wanted: list[str | None]) -> bool:
    """Whether another session can take `wanted` while this one holds `held`."""
    outcome: list[bool] = []

    def other() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '300ms'")
                memory_write_lock(advertisers=wanted)
            outcome.append(True)
        except OperationalError:
            outcome.append(False)
        finally:
            connection.close()

    with transaction.atomic():
        memory_write_lock(advertisers=held)
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(timeout=30)
    return outcome == [True]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "held, wanted, runs_alongside",
    [
        (["brand_A"], ["brand_B"], True),  # two advertisers: side by side
        (["brand_A"], ["brand_A"], False),  # one advertiser: they queue
        (["brand_A"], [None], False),  # a global write waits for an advertiser's writer
        ([None], ["brand_B"], False),  # and an advertiser's writer waits for a global write
        ([None], [None], False),
        (["brand_A", "brand_B"], ["brand_B"], False),  # a write spanning two scopes holds both
    ],
)
def test_scopes_block_only_what_they_should(held, wanted, runs_alongside):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's IMMEDIATE transactions are the one write lock; nothing is taken per scope")
    assert _can_lock_while_held(held, wanted) is runs_alongside
