"""Settings for the test suite: the real stack (SQLite + FTS5 migrations, the bundled
embedder, the offline judge), with background work made synchronous."""

from lingix_site.settings import *  # noqa: F401,F403

MEMORY_LLM_PROVIDER = "offline"
# A developer's own reranker in the environment must not change what deep-search tests rank.
MEMORY_RERANK_ENDPOINT = ""
MEMORY_ACCESS_ASYNC = False
Q_CLUSTER = {**Q_CLUSTER, "sync": True}  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
