"""memories.storage stores what governance decided and decides nothing; above memories,
only governance/write/memory.py may call its row-changing functions, so every change to a
memory passes the hard rules. Read from the source with ast, every package above memories."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROW_WRITERS = {"memory_create", "memory_supersede", "memory_set_status", "memory_set_organisation", "memory_reinforce"}
ALLOWED = {ROOT / "governance" / "memory_write.py"}


def _storage_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "memories.storage":
            found += [f"{path.relative_to(ROOT)}: imports {a.name}" for a in node.names if a.name in ROW_WRITERS]
        if isinstance(node, ast.Attribute) and node.attr in ROW_WRITERS and isinstance(node.value, ast.Name):
            if node.value.id in {"storage", "services"}:
                found.append(f"{path.relative_to(ROOT)}: calls {node.value.id}.{node.attr}")
    return found


def test_only_the_governed_write_path_changes_memory_rows():
    offenders = []
    for package in ("governance", "api", "lingix_site"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path not in ALLOWED and "migrations" not in path.parts:
                offenders += _storage_calls(path)
    assert offenders == [], offenders


def test_the_organise_backfill_goes_through_the_write_path(db):
    from governance.knowledge.organise.backfill import memories_organise
    from memories.models import Memory
    from memories.storage import memory_create

    memory = memory_create(
        content="brand_A 医药OTC 冷启动期出价上限 2 元，ROI 目标 1.8", layer="L2", advertiser="brand_A", source="human", embed=False
    )
    Memory.objects.filter(pk=memory.pk).update(kind="", category_node=None, abstract_line="")
    memories_organise()
    memory.refresh_from_db()
    assert memory.kind and memory.abstract_line
    assert memory.category_node is not None and memory.category_node.advertiser == "brand_A"
