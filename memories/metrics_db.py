"""Memory counts for /metrics, read from the database at scrape time so that every
process's writes (web, qcluster, CLI) are in the figure."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from memories.constants import Layer, Status
from memories.metrics_registry import PREFIX
from memories.models import Memory


class MemoryCountsCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(f"{PREFIX}_memories", "Stored memories, by layer and status", labels=["layer", "status"])
        counts = {(layer.value, status.value): 0 for layer in Layer for status in Status}
        for row in Memory.objects.values("layer", "status").annotate(n=Count("id")):
            counts[(row["layer"], row["status"])] = row["n"]
        for (layer, status), n in sorted(counts.items()):
            family.add_metric([layer, status], n)
        yield family
