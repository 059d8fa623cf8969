"""Scheduled embedding backfill: rows whose vector is missing or from another model."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import OperationalError

from memories.embeddings import EmbeddingError
from memories.embeddings.store import embed_backfill
from memories.lifecycle.db import is_busy

logger = logging.getLogger(__name__)


def embeddings_backfill(*, now: datetime | None = None, batch_size: int = 64) -> dict[str, Any]:
    """embed_backfill already writes each chunk in its own short transaction, and the
    embedder runs outside any. A provider outage or a busy database is reported, not
    raised: whatever was left over is simply picked up by the next run."""
    try:
        return embed_backfill(batch_size=batch_size)
    except EmbeddingError as exc:
        logger.warning("embedding backfill deferred: %s", exc)
        return {"embedded": 0, "deferred": str(exc)}
    except OperationalError as exc:
        if not is_busy(exc):
            raise
        logger.warning("embedding backfill deferred, database busy: %s", exc)
        return {"embedded": 0, "deferred": "database busy"}
