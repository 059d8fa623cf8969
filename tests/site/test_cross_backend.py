"""Export from SQLite → import into PostgreSQL → export → import into SQLite is lossless.
Runs in `make test-postgres` (it needs the PostgreSQL server that run provides)."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
DATABASE_URL = os.environ.get("DATABASE_URL", "")

pytestmark = pytest.mark.skipif(not DATABASE_URL.startswith("postgres"), reason="needs the PostgreSQL server of make test-postgres")


def _memory(url: str, *args: str) -> str:
    env = {**os.environ, "DATABASE_URL": url, "MEMORY_LLM_PROVIDER": "offline", "DJANGO_SETTINGS_MODULE": "lingix_site.settings"}
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _lines(path: Path) -> list[dict]:
    return sorted((json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()), key=lambda row: row["id"])


def test_sqlite_to_postgres_and_back_is_lossless(tmp_path):
    import psycopg

    first = f"sqlite:///{tmp_path / 'first.db'}"
    _memory(first, "migrate", "--noinput")
    _memory(first, "memory", "seed-demo")
    # A version chain and an access count, so the round trip carries more than plain rows.
    _memory(first, "memory", "ingest", "用户纠正：brand_A 医药OTC类目出价不要超过1.5元", "--advertiser", "brand_A", "--source", "user")
    _memory(first, "memory", "ingest", "用户纠正：brand_A 医药OTC类目出价不要超过1.2元", "--advertiser", "brand_A", "--source", "user")
    _memory(first, "memory", "search", "出价", "--advertiser", "brand_A")
    _memory(first, "memory", "export", "--output", str(tmp_path / "a.jsonl"))

    name = f"lingix_roundtrip_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(DATABASE_URL)
    admin_url = urlunsplit(parts._replace(scheme="postgresql"))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        pg = urlunsplit(parts._replace(path=f"/{name}"))
        _memory(pg, "migrate", "--noinput")
        _memory(pg, "memory", "import", str(tmp_path / "a.jsonl"))
        _memory(pg, "memory", "export", "--output", str(tmp_path / "b.jsonl"))
        hits = json.loads(_memory(pg, "memory", "search", "冷启动 出价", "--advertiser", "brand_A", "--json"))["results"]
        assert hits and all(hit["advertiser"] in ("brand_A", None) for hit in hits)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    last = f"sqlite:///{tmp_path / 'last.db'}"
    _memory(last, "migrate", "--noinput")
    _memory(last, "memory", "import", str(tmp_path / "b.jsonl"))
    _memory(last, "memory", "export", "--output", str(tmp_path / "c.jsonl"))

    a, b, c = _lines(tmp_path / "a.jsonl"), _lines(tmp_path / "b.jsonl"), _lines(tmp_path / "c.jsonl")
    assert len(a) >= 42
    assert any(row["supersedes"] for row in a) and any(row["access_count"] for row in a)
    assert a == b == c
