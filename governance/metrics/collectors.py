"""The review queue for /metrics, read from the database at scrape time (the queue is
filled by the web server, the scheduler and the CLI alike)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from governance.constants import ReviewKind, ReviewStatus
from governance.models import ReviewItem
from memories.metrics_registry import PREFIX


class ReviewQueueCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        size = GaugeMetricFamily(f"{PREFIX}_review_queue_size", "Open review items, by kind", labels=["kind"])
        oldest = GaugeMetricFamily(
            f"{PREFIX}_review_queue_oldest_age_seconds", "Age of the oldest open review item, by kind (0 when none)", labels=["kind"]
        )
        open_items = ReviewItem.objects.filter(status=ReviewStatus.OPEN)
        rows = {r["kind"]: r for r in open_items.values("kind").annotate(n=Count("id"), first=Min("created_at"))}
        now = timezone.now()
        for kind in ReviewKind.values:
            row = rows.get(kind)
            size.add_metric([kind], row["n"] if row else 0)
            oldest.add_metric([kind], max(0.0, (now - row["first"]).total_seconds()) if row else 0.0)
        yield size
        yield oldest
