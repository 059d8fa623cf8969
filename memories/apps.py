import os
import sys

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MemoriesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memories"
    verbose_name = _("Memories")

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from memories.search.sqlite_functions import register_sqlite_functions

        connection_created.connect(register_sqlite_functions, dispatch_uid="lingix_sqlite_functions")
        _one_blas_thread()


def _one_blas_thread() -> None:
    """Searches multiply small matrices (a few thousand rows); a BLAS thread pool gains
    nothing there, and its threads spin on after each call, taking the core that the
    vector arm (memories.search.vectors.search_soon) and other requests need. At 100k
    memories one search cost 14.5 ms of CPU with the pool and 7 ms without (bench.latency).
    OPENBLAS_NUM_THREADS alone is not enough: it binds only if it is set before numpy
    loads, and the benches imported numpy first, and searched with a pool for it.

    numpy itself is not imported here: a process that never searches or embeds (the admin
    starting up, `memory --help`) should not pay for loading it. If something loaded it
    already, threadpoolctl resizes its pool now; otherwise the variable binds when it loads
    (threadpoolctl can still raise the limit later, as the benches' baseline does)."""
    if "numpy" in sys.modules:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
    else:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
