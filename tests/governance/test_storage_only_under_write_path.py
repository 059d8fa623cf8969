"""One door into the Memory table. Only governance/write/ (the write functions, which check
the hard rules and audit) and memories/storage.py (the row writes they call) write it; every
other module of the application only reads it. Read from the source with ast, so a new side
door fails here before it ships:

- ORM writes: save/create/update/delete/bulk_create/bulk_update/get_or_create/
  update_or_create on `Memory`, its manager, a queryset or instance built from it, a
  parameter typed `Memory`, or the `memories` related manager of a category;
- raw SQL: INSERT INTO / UPDATE / DELETE FROM on memories_memory (a literal table name, or
  Memory._meta.db_table in an f-string).

Migrations are exempt (they shape the table). So are benchmarks (bench/ builds synthetic
stores of a million rows directly; it is not part of the service). Tests are not scanned."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("api", "desk", "governance", "memories", "judges", "textrules", "lingix_config", "lingix_site", "scripts")
DOOR = (ROOT / "governance" / "write", ROOT / "memories" / "storage.py")

# Derived columns that are not governed content, each written by one module, with why.
# Only these fields may be written there; anything else in those modules is a finding too.
DERIVED = {
    # Use statistics: a search that returns a memory counts it (batched increments).
    ROOT / "memories" / "access.py": {"access_count", "last_accessed_at"},
    # The embedding of the content the write path stored (model and dimension with it);
    # embedding_vec is where PostgreSQL keeps it (migration 0011), set in raw SQL.
    ROOT / "memories" / "embeddings" / "store.py": {"embedding", "embedding_vec", "embedding_model", "embedding_dim"},
}

WRITES = {"save", "create", "update", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}
SQL_WRITE = re.compile(r"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+[\"`]?memories_memory[\"`]?(?![\w])", re.IGNORECASE)
SQL_SET = re.compile(r"\bUPDATE\s+[\"`]?memories_memory[\"`]?\s+SET\s+(.*?)\s+WHERE\b", re.IGNORECASE | re.DOTALL)
SQL_VERB = re.compile(r"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s*$", re.IGNORECASE)


def _names(node: ast.AST) -> list[str]:
    """The dotted parts of a receiver chain, calls looked through: Memory.objects.filter(...)
    gives ["Memory", "objects", "filter"]."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            return parts[::-1]
        else:
            return parts[::-1]


def _is_memory_expr(node: ast.AST, bound: set[str]) -> bool:
    parts = _names(node)
    if not parts:
        return False
    if parts[0] == "Memory" and (len(parts) == 1 or parts[1] in {"objects", "_default_manager", "_base_manager"}):
        return True
    if parts[0] in bound and "through" not in parts:
        return True
    # A category's related manager: node.memories.filter(...).update(...)
    return "memories" in parts[1:]


def _annotated_memory(annotation: ast.AST | None) -> bool:
    return annotation is not None and "Memory" in {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)} | {
        n.value for n in ast.walk(annotation) if isinstance(n, ast.Constant) and n.value == "Memory"
    }


def _bound_names(tree: ast.AST) -> set[str]:
    """Names that hold Memory rows or querysets somewhere in the module: assigned from
    Memory(...) / Memory.objects..., loop variables over such querysets, parameters typed Memory."""
    bound: set[str] = set()
    for _ in range(2):  # one more pass lets x = y.filter(...) follow y
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if _is_memory_expr(node.value, bound) or (isinstance(node, ast.AnnAssign) and _annotated_memory(node.annotation)):
                    bound |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.For | ast.comprehension) and _is_memory_expr(node.iter, bound):
                bound |= {t.id for t in ast.walk(node.target) if isinstance(t, ast.Name)}
            elif isinstance(node, ast.arg) and _annotated_memory(node.annotation):
                bound.add(node.arg)
    return bound


def _sets_only(sql: str, allowed_fields: set[str] | None) -> bool:
    """Whether `sql` is one UPDATE of memories_memory whose SET names only allowed columns."""
    found = SQL_SET.fullmatch(sql.strip()) or SQL_SET.match(sql.strip())
    if allowed_fields is None or found is None or len(SQL_WRITE.findall(sql)) != 1:
        return False
    columns = {part.split("=", 1)[0].strip().strip('"') for part in found.group(1).split(",") if "=" in part}
    return bool(columns) and columns <= allowed_fields


def _sql_findings(tree: ast.AST, allowed_fields: set[str] | None = None) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_WRITE.search(node.value):
            if _sets_only(node.value, allowed_fields):
                continue
            found.append((node.lineno, f"raw SQL write: {SQL_WRITE.search(node.value).group(0)!r}"))
        elif isinstance(node, ast.JoinedStr):
            for before, value in zip(node.values, node.values[1:], strict=False):
                if (
                    isinstance(before, ast.Constant)
                    and isinstance(value, ast.FormattedValue)
                    and SQL_VERB.search(str(before.value))
                    and "db_table" in _names(value.value) + [a.attr for a in ast.walk(value.value) if isinstance(a, ast.Attribute)]
                    and "Memory" in {n.id for n in ast.walk(value.value) if isinstance(n, ast.Name)}
                ):
                    found.append((node.lineno, "raw SQL write on Memory._meta.db_table"))
    return found


def memory_writes(source: str, *, allowed_fields: set[str] | None = None) -> list[tuple[int, str]]:
    """(line, what) for each write of the Memory table in `source`. With `allowed_fields`,
    an update() that sets only those fields is not counted (a derived column)."""
    tree = ast.parse(source)
    bound = _bound_names(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITES):
            continue
        receiver = node.func.value
        if not _is_memory_expr(receiver, bound):
            continue
        if allowed_fields is not None and node.func.attr == "update":
            keys = {k.arg for k in node.keywords}
            if None not in keys and keys <= allowed_fields:
                continue
        found.append((node.lineno, f"{'.'.join(_names(receiver))}.{node.func.attr}(…)"))
    return found + _sql_findings(tree, allowed_fields)


def _scanned() -> list[Path]:
    files = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts or any(path == door or door in path.parents for door in DOOR):
                continue
            files.append(path)
    return files


def test_no_module_outside_the_write_package_writes_memory_rows():
    offenders = []
    for path in _scanned():
        for line, what in memory_writes(path.read_text(encoding="utf-8"), allowed_fields=DERIVED.get(path)):
            offenders.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert offenders == [], "\n".join(offenders)


def test_the_scan_covers_the_application_and_the_exemptions_exist():
    scanned = set(_scanned())
    assert len(scanned) > 200
    assert ROOT / "governance" / "lifecycle" / "evict.py" in scanned
    assert ROOT / "governance" / "knowledge" / "organise" / "backfill.py" in scanned
    assert all(path.exists() and path in scanned for path in DERIVED)


# The side doors this guard closed, as they were written: each must be found.
SIDE_DOORS = {
    "a restore that saves rows itself": """
        def restore(fields):
            memory = Memory(**fields)
            memory.save(force_insert=True)
    """,
    "a direct update of the version link": """
        Memory.objects.filter(pk=fields["stored_id"]).update(supersedes_id=fields["supersedes"])
    """,
    "a retier by direct update": """
        if Memory.objects.filter(pk=memory_id, status="active", tier=old).update(tier=new, updated_at=now):
            pass
    """,
    "a queryset held in a variable": """
        rows = Memory.objects.filter(advertiser="brand_A")
        stale = rows.exclude(layer="L1")
        stale.delete()
    """,
    "an instance typed Memory": """
        def touch(memory: Memory) -> None:
            memory.importance = 9
            memory.save(update_fields=["importance"])
    """,
    "a loop over a queryset": """
        for m in Memory.objects.filter(layer="L3"):
            m.delete()
    """,
    "a category's related manager": """
        node.memories.all().update(category="")
    """,
    "bulk writes": """
        Memory.objects.bulk_create([Memory(layer="L2", content="冷启动出价")])
        Memory.objects.update_or_create(pk=1, defaults={"content": "x"})
    """,
    "raw SQL with the table name": """
        cursor.execute("UPDATE memories_memory SET status = 'archived' WHERE id = %s", [1])
    """,
    "raw SQL inserting": """
        cursor.execute('INSERT INTO "memories_memory" (layer, content) VALUES (%s, %s)', ["L2", "预算"])
    """,
    "raw SQL through the model's table name": """
        sql = f"DELETE FROM {quote(Memory._meta.db_table)} WHERE id = %s"
    """,
    "a derived-column module writing content": """
        Memory.objects.filter(pk__in=ids).update(access_count=F("access_count") + 1, content="改写")
    """,
}


def test_the_scan_finds_every_kind_of_side_door():
    for name, source in SIDE_DOORS.items():
        assert memory_writes(textwrap.dedent(source), allowed_fields=DERIVED[ROOT / "memories" / "access.py"]), name


def test_the_scan_leaves_reads_other_tables_and_derived_columns_alone():
    source = textwrap.dedent(
        """
        rows = Memory.objects.filter(layer="L2").values_list("id", flat=True)
        Trace.objects.bulk_create(traces)
        MemoryEvent.objects.filter(pk=1).update(status="decided")
        Memory.derived_from.through.objects.filter(from_memory__layer="L4")
        cursor.execute("SELECT id FROM memories_memory WHERE status = %s", ["active"])
        cursor.execute("DELETE FROM memories_memoryentity WHERE memory_id = %s", [1])
        cursor.execute("UPDATE memories_memory_fts SET rank = 1")
        Memory.objects.filter(pk__in=ids).update(access_count=F("access_count") + 1, last_accessed_at=now)
        """
    )
    assert memory_writes(source, allowed_fields=DERIVED[ROOT / "memories" / "access.py"]) == []


def test_only_the_write_package_imports_the_row_storage():
    offenders = []
    for path in _scanned():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "memories.storage" and path != ROOT / "memories" / "storage.py":
                offenders.append(f"{path.relative_to(ROOT)}: from memories.storage import …")
            if isinstance(node, ast.ImportFrom) and node.module == "memories" and any(a.name == "storage" for a in node.names):
                offenders.append(f"{path.relative_to(ROOT)}: from memories import storage")
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


def test_a_derived_modules_raw_update_may_set_only_its_columns():
    allowed = DERIVED[ROOT / "memories" / "embeddings" / "store.py"]
    vector = 'cursor.execute("UPDATE memories_memory SET embedding_vec = %s::vector, embedding_dim = %s WHERE id = %s", [])'
    assert memory_writes(vector, allowed_fields=allowed) == []
    assert memory_writes(vector) != []  # elsewhere any raw write is a finding
    for sql in (
        "UPDATE memories_memory SET content = %s WHERE id = %s",
        "UPDATE memories_memory SET embedding_vec = %s::vector, status = 'archived' WHERE id = %s",
        "DELETE FROM memories_memory WHERE id = %s",
    ):
        assert memory_writes(f'cursor.execute("{sql}", [])', allowed_fields=allowed) != [], sql
