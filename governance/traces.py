"""The one way to write a Trace row. Reasons and scores are built from proposals, model
answers and reviewers' notes, so they are scrubbed of credentials and personal data here,
whoever composed them (reasons as governance.reasons stores them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from governance.models import Trace
from governance.reasons import reason_columns
from textrules.reasons import Reason
from textrules.safety import scan_data


def trace_row(
    *,
    stage: str,
    decision: str = "",
    reasons: Sequence[Reason | str] = (),
    scores: dict[str, Any] | None = None,
    event: Any = None,
    event_id: int | None = None,
    memory: Any = None,
    memory_id: int | None = None,
    seq: int = 0,
    **telemetry: Any,
) -> Trace:
    """An unsaved, scrubbed Trace (for bulk_create); `telemetry` holds provider, model,
    prompt_version, latency_ms, tokens_in, tokens_out, cost_usd."""
    clean_scores, _ = scan_data(dict(scores or {}))
    links: dict[str, Any] = {"event": event} if event is not None else {"event_id": event_id}
    links.update({"memory": memory} if memory is not None else {"memory_id": memory_id})
    return Trace(stage=stage, decision=decision, **reason_columns(reasons), scores=clean_scores, seq=seq, **links, **telemetry)


def trace_create(**fields: Any) -> Trace:
    """trace_row(...) saved; takes the same keyword arguments."""
    row = trace_row(**fields)
    row.save()
    return row
