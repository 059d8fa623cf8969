"""bench.funnel --store: decisions timed beside a store grown by copies of governed memories."""

from __future__ import annotations

import pytest
from django.db import connection

from bench._common import Progress
from bench.funnel import throughput
from memories.models import Memory


@pytest.mark.skipif(connection.vendor != "sqlite", reason="bench.funnel runs on a throwaway SQLite file; the copies are SQLite SQL")
@pytest.mark.django_db(transaction=True)
def test_a_grown_store_holds_the_size_asked_and_the_funnel_still_decides():
    report = throughput(4, Progress(quiet=True), store=300)
    assert report["store"] == 300 and Memory.objects.count() >= 300
    assert sum(report["actions"].values()) == 4
    # Each copy has its own text hash (a few governed versions share one), so a decision does not
    # find hundreds of exact repeats.
    governed = Memory.objects.order_by("pk").values_list("pk", flat=True)[0] + 200
    copies = Memory.objects.filter(pk__gt=governed)
    assert copies.count() > 50 and copies.values("content_hash").distinct().count() == copies.count()
    assert Memory.objects.filter(supersedes__isnull=False).count() < 20
