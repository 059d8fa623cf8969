"""Run in a child process by test_safety_storage: a fresh SQLite file database, the whole
hostile corpus through the real funnel (ingest and trigger), review notes and audit rows
that quote the same values, then the database and WAL files read as bytes while the
connection is still open (so the WAL has not been folded back yet).

    python -m tests.textrules.safety.safety_store_corpus   (DATABASE_URL names the file)

Prints one JSON document: decisions per case id, and the case ids whose value was found
in which file."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lingix_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from governance.audit import audit_record
    from governance.constants import ReviewKind
    from governance.intake.services import event_ingest, event_trigger
    from governance.models import LayerPolicy
    from governance.review.services import review_approve, review_item_create, review_reject
    from tests.textrules.safety.safety_corpus import HOSTILE, leaks

    call_command("migrate", verbosity=0)
    LayerPolicy.objects.update(sampled_audit_rate=1.0)  # every sampled-audit copy is stored too
    decisions: dict[str, str] = {}
    for case in HOSTILE:
        if case["via"] == "ingest":
            d = event_ingest(text=case["text"], source="user", advertiser="brand_A", actor="token:hostile")
        else:
            d = event_trigger(
                event_type=case["event_type"], summary=case["summary"], data=case["data"], source="user", advertiser="brand_A"
            )
        decisions[case["id"]] = d.action
        # The same case as a reviewer would paste it into a note, and as audit details.
        quoted = case.get("text") or f"{case['summary']} {json.dumps(case['data'], ensure_ascii=False)}"
        note = f"复核备注：{quoted}"
        item = review_item_create(
            kind=ReviewKind.PENDING_WRITE,
            reason=note,
            event=None,
            layer="L2",
            advertiser="brand_A",
            candidate={"content": note, "layer": "L2", "source": "user", "advertiser": "brand_A"},
            payload={"quote": quoted, "data": case.get("data")},
            proposed_by="agent",
        )
        if len(decisions) % 2:
            review_reject(item=item, reviewer=None, reviewer_name="ops_lead", note=note)
        else:
            review_approve(item=item, reviewer=None, reviewer_name="ops_lead", note=note, operator=True)
        audit_record(event_type="safety.check", actor="ops_lead", extra={"text": note, "data": case.get("data"), quoted: 1})

    db_path = Path(settings.DATABASES["default"]["NAME"])
    found: dict[str, list[str]] = {}
    for path in (db_path, Path(f"{db_path}-wal")):
        blob = path.read_bytes() if path.exists() else b""
        found[path.name] = [case["id"] for case in HOSTILE if leaks(blob, case)]
    sizes = {p.name: p.stat().st_size for p in (db_path, Path(f"{db_path}-wal")) if p.exists()}
    connection.close()
    print(json.dumps({"decisions": decisions, "found": found, "sizes": sizes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
