"""Run in a subprocess by test_erase_files.py: a throwaway SQLite file database (the test
database of pytest lives in memory, so it has no file to read), a memory with a
conversation source, two versions (the second an operator's edit, in the admin log too)
and review history, erased through the real command;
then the database files are read as bytes. Prints one JSON document."""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path

# Words that exist only in this memory, its source turns and its review note.
MARKERS = ["青柠计划", "夜莺口径", "nightjarQ7", "晚间21点后出价上调12%", "晚间21点后出价上调15%"]
ASSISTANT = "要不要把 brand_A 青柠计划 的 nightjarQ7 出价口径记下来：晚间21点后出价上调12%？"
USER = "对，就按这个记：青柠计划 nightjarQ7 晚间21点后出价上调12%，以后都这样执行"


def forms(word: str) -> set[bytes]:
    out = set()
    for form in (word, json.dumps(word)[1:-1], json.dumps(word, ensure_ascii=False)[1:-1]):
        out |= {form.encode("utf-8"), form.lower().encode("utf-8")}
    return out


def found_in(blob: bytes) -> list[str]:
    lowered = blob.lower()
    return [w for w in MARKERS if any(f in blob or f.lower() in lowered for f in forms(w))]


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import setup_throwaway_django

    workdir = setup_throwaway_django("erase")
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from governance.intake.services import event_ingest
    from governance.models import LayerPolicy, ReviewItem
    from governance.review.services import review_approve
    from governance.write.admin_edits import memory_admin_edit
    from governance.write.erase import ErasedContent
    from memories.embeddings.store import embed_backfill, memory_vectors
    from memories.models import Memory, Tombstone

    ops = get_user_model().objects.create_superuser("ops", "ops@example.invalid", "x-unused-9")
    LayerPolicy.objects.filter(layer="L2").update(sampled_audit_rate=1.0)
    messages = [{"role": "assistant", "content": ASSISTANT}, {"role": "user", "content": USER}]
    first = event_ingest(messages=messages, advertiser="brand_A", layer="L2", actor="token:agent-a")
    memory = Memory.objects.get(pk=first.memory_id)
    newer = memory_admin_edit(memory=memory, user=ops, changes={"content": "青柠计划 nightjarQ7 晚间21点后出价上调15%（夜莺口径）"})
    # What the admin's change view records beside the edit: "Recent actions" keeps str() of
    # the memory, its first words.
    LogEntry.objects.log_actions(ops.pk, Memory.objects.filter(pk=newer.pk), CHANGE, change_message="改为夜莺口径", single_object=True)
    embed_backfill()
    for item in ReviewItem.objects.filter(status="open"):
        review_approve(item=item, reviewer=ops, reviewer_name="ops", note="核对过：青柠计划 nightjarQ7 夜莺口径无误", operator=True)
    before = {"versions": Memory.objects.filter(pk__in=[memory.pk, newer.pk]).count(), "review_items": ReviewItem.objects.count()}
    db = Path(connection.settings_dict["NAME"])
    seen_before = found_in(b"".join(p.read_bytes() for p in (db, Path(f"{db}-wal")) if p.exists()))
    # The vector index's shared file holds a float32 copy of each vector once a process has
    # loaded it: the erase must zero those slots too.
    from memories.embeddings import get_embedder
    from memories.search.vector_file import shared_path
    from memories.search.vectors import vector_index

    vector_index.refresh()
    versions = list(Memory.objects.filter(pk__in=[memory.pk, newer.pk]))
    embeddings = [v.tobytes() for v in memory_vectors(versions) if v is not None]
    vector_file = shared_path(db, get_embedder().model_name, get_embedder().dimension)
    assert vector_file is not None
    vectors_before = sum(e in vector_file.read_bytes() for e in embeddings) if vector_file.exists() else 0

    out = io.StringIO()
    with redirect_stdout(out):
        try:
            call_command("memory", "erase", str(newer.pk), "--reason", "客户依 PIPL 要求删除", "--as", "ops", "--json")
        except SystemExit as exit_:
            code = exit_.code
    erased = json.loads(out.getvalue())
    stones = list(Tombstone.objects.values("memory_id", "erased_by", "reason", "layer", "advertiser"))
    try:
        event_ingest(messages=messages, advertiser="brand_A", layer="L2", actor="token:agent-a")
        refusal = ""
    except ErasedContent as exc:
        refusal = str(exc)
    connection.close()
    blobs = {p.name: p.read_bytes() for p in sorted(workdir.iterdir()) if p.name.startswith("bench.db")}
    print(
        json.dumps(
            {
                "exit": code,
                "decision": first.action,
                "before": before,
                "seen_before": seen_before,
                "erased": erased,
                "tombstones": stones,
                "refusal": refusal,
                "files": {name: len(blob) for name, blob in blobs.items()},
                "left": {name: found_in(blob) for name, blob in blobs.items()},
                "vector_file": vector_file.name,
                "vectors_before": vectors_before,
                "vectors_left": {name: sum(e in blob for e in embeddings) for name, blob in blobs.items()},
            },
            ensure_ascii=False,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
