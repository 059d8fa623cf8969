"""The local settings file `make run` leaves behind, so that the commands it prints work
as printed in a new shell (where the Makefile's exports are gone).

The file holds plain `NAME=value` lines. Reading it never overrides a variable that is
already set in the environment, so a real environment variable always wins. Secrets are
never written to it: keys stay in the environment only."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ENV_FILE = REPO_ROOT / ".lingix.env"
# What `make run` decides for the operator and the CLI needs to repeat; never a key.
CHOSEN_SETTINGS = (
    "MEMORY_LLM_PROVIDER",
    "MEMORY_LLM_BASE_URL",
    "MEMORY_JUDGE_MODEL",
    "MEMORY_EMBEDDING_PROVIDER",
    "MEMORY_EMBEDDING_MODEL",
    "MEMORY_EMBEDDING_BASE_URL",
    "DATABASE_URL",
    "TZ_NAME",
)
_NEVER_WRITTEN_MARKERS = ("KEY", "SECRET", "PASSWORD", "TOKEN")


def _without_credentials(value: str) -> str:
    """A URL setting (DATABASE_URL, a gateway base URL) may carry a password in its
    user part or a key in its query; neither is written. PostgreSQL then takes the
    password from PGPASSWORD or ~/.pgpass, as libpq does for any connection without one."""
    try:
        parts = urlsplit(value)
        password = parts.password
    except ValueError:
        return value
    if not parts.scheme or not parts.netloc:
        return value
    netloc = parts.netloc
    if password is not None:
        host = netloc.rpartition("@")[2]
        netloc = f"{parts.username}@{host}" if parts.username else host
    query = urlencode(
        [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not any(marker in k.upper() for marker in (*_NEVER_WRITTEN_MARKERS, "PASS", "AUTH"))
        ]
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def env_file_path() -> Path | None:
    """LINGIX_ENV_FILE names another file; set to an empty string it turns the file off
    (test subprocesses do that so a developer's file cannot change what they check)."""
    override = os.environ.get("LINGIX_ENV_FILE")
    if override is None:
        return DEFAULT_ENV_FILE
    return Path(override) if override.strip() else None


def parse_env_text(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[name.strip()] = value
    return values


def load_env_file() -> list[str]:
    """Set the file's variables that the environment does not already have; returns their names."""
    path = env_file_path()
    if path is None or not path.is_file():
        return []
    loaded = []
    for name, value in parse_env_text(path.read_text(encoding="utf-8")).items():
        if name and name not in os.environ:
            os.environ[name] = value
            loaded.append(name)
    if loaded:
        # Anything that read the configuration before the file was loaded sees it now.
        from lingix_config import reload_config

        reload_config()
    return loaded


def write_env_file(environ: dict[str, str] | None = None, path: Path | None = None) -> Path:
    """Record the chosen settings from `environ` (default: this process's environment)."""
    environ = dict(os.environ) if environ is None else environ
    path = path or env_file_path() or DEFAULT_ENV_FILE
    lines = [
        "# Written by `make run`: the settings it chose, read by manage.py and the WSGI app.",
        "# A variable set in the environment wins over this file. Keys are never written here.",
    ]
    for name in CHOSEN_SETTINGS:
        value = environ.get(name, "")
        if value and not any(marker in name for marker in _NEVER_WRITTEN_MARKERS):
            lines.append(f"{name}={_without_credentials(value)}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":  # `python -m lingix_site.envfile write` (the Makefile's run target)
    if sys.argv[1:] != ["write"]:
        sys.stderr.write("usage: python -m lingix_site.envfile write\n")
        raise SystemExit(2)
    written = write_env_file()
    sys.stderr.write(f"settings for new shells written to {written.name} (environment variables win)\n")
