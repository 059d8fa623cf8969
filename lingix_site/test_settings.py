"""Settings for the test suite: the real stack (SQLite + FTS5 migrations, the bundled
embedder, the offline judge), with background work made synchronous."""

from lingix_site.settings import *  # noqa: F401,F403

MEMORY_LLM_PROVIDER = "offline"
MEMORY_ACCESS_ASYNC = False
Q_CLUSTER = {**Q_CLUSTER, "sync": True}  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
