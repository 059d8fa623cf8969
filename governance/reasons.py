"""How rows keep their reasons (the codes and wording are textrules.reasons).

A MemoryEvent and a Trace keep `reasons` (the English sentences the API and the CLI
return) and `reason_codes` (the same reasons as codes with parameters, which the desk
renders in the reader's language), one code per sentence. A ReviewItem keeps its
`reason` as one English line beside its `reason_codes`. Both are scrubbed of credentials
and personal data: reasons quote proposals and reviewers' notes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textrules.reasons import Reason, as_reason, stored_reasons
from textrules.safety import scan_data

REVIEW_REASON_CHARS = 2000


def reason_columns(reasons: Iterable[Reason | str]) -> dict[str, list[Any]]:
    """{"reasons": [English], "reason_codes": [{code, params}]} for a row's create or update."""
    found = [as_reason(r) for r in reasons]
    texts, _ = scan_data([r.english() for r in found])
    codes, _ = scan_data([r.as_json() for r in found])
    return {"reasons": texts, "reason_codes": codes}


def review_reason_columns(reasons: Iterable[Reason | str]) -> dict[str, Any]:
    """{"reason": one English line, "reason_codes": [...]} for a ReviewItem."""
    columns = reason_columns(reasons)
    return {"reason": "; ".join(columns["reasons"])[:REVIEW_REASON_CHARS], "reason_codes": columns["reason_codes"]}


def row_reasons(row: Any) -> list[Reason]:
    """A MemoryEvent's or a Trace's reasons as Reasons (an old row without codes: its text)."""
    return stored_reasons(row.reasons, getattr(row, "reason_codes", None))


def review_item_reasons(item: Any) -> list[Reason]:
    """Why an item is in the queue: the funnel's reasons it was parked or sampled with
    (in its payload), else its own reason."""
    payload = item.payload or {}
    recorded = payload.get("reasons")
    if isinstance(recorded, list) and recorded:
        return stored_reasons(recorded, payload.get("reason_codes"))
    decoded = [r for r in (Reason.from_json(c) for c in item.reason_codes or []) if r is not None]
    if decoded:
        return decoded
    return [Reason.text(item.reason)] if item.reason else []
