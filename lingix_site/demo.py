"""Demo data for `make run`: about forty Chinese/English ad-ops memories, loaded once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.utils import timezone

from governance.constants import AuditEvent
from governance.knowledge.suggestions import suggestions_for_live_signals
from governance.models import AuditLog
from governance.write.imports import memories_import
from memories.embeddings.store import embed_backfill
from memories.models import Memory

DEMO_FILE = Path(__file__).resolve().parent / "fixtures" / "demo_memories.jsonl"


def demo_load_once() -> dict[str, Any]:
    """Load the demo set unless it was loaded before (an audit entry remembers)."""
    if AuditLog.objects.filter(event_type=AuditEvent.MEMORY_IMPORT, extra_data__label="demo").exists():
        return {"loaded": False, "reason": "demo data was loaded before"}
    if Memory.objects.exists():
        # The demo lines carry their ids (the L4 templates name the L2 memories they came from).
        return {"loaded": False, "reason": "the database already holds memories"}
    report = memories_import(lines=DEMO_FILE.read_text(encoding="utf-8").splitlines(), actor="make run", label="demo", embed=False)
    embedded = embed_backfill()["embedded"]
    suggested = suggestions_for_live_signals(now=timezone.now())
    return {"loaded": True, "imported": report.imported, "embedded": embedded, "suggestions": suggested}
