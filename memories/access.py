"""Access bookkeeping (count, last access) that never sits on the search path.

Searches only add ids to an in-process buffer; a daemon thread flushes it every few
seconds in one short UPDATE per distinct increment. With MEMORY_ACCESS_ASYNC off (tests,
one-shot CLI calls) every record is written at once."""

from __future__ import annotations

import atexit
import threading
import time
from collections import Counter

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

_FLUSH_SECONDS = 3.0


class AccessRecorder:
    def __init__(self) -> None:
        self._pending: Counter[int] = Counter()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def record(self, memory_ids: list[int]) -> None:
        if not memory_ids:
            return
        with self._lock:
            self._pending.update(memory_ids)
        if getattr(settings, "MEMORY_ACCESS_ASYNC", True):
            self._ensure_thread()
        else:
            self.flush()

    def flush(self) -> int:
        from django.db.models import F

        from memories.models import Memory

        with self._lock:
            pending, self._pending = self._pending, Counter()
        if not pending:
            return 0
        by_increment: dict[int, list[int]] = {}
        for memory_id, count in pending.items():
            by_increment.setdefault(count, []).append(memory_id)
        now = timezone.now()
        for increment, ids in by_increment.items():
            Memory.objects.filter(pk__in=ids).update(access_count=F("access_count") + increment, last_accessed_at=now)
        return len(pending)

    def _ensure_thread(self) -> None:
        if self._thread and self._thread.is_alive():
            return
        with self._lock:
            if self._thread and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._loop, name="lingix-access-flush", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(_FLUSH_SECONDS)
            try:
                close_old_connections()
                self.flush()
            except Exception:  # noqa: BLE001 - bookkeeping must never kill the process
                pass
            finally:
                connection.close()


access_recorder = AccessRecorder()
atexit.register(lambda: _safe_flush())


def _safe_flush() -> None:
    try:
        access_recorder.flush()
    except Exception:  # noqa: BLE001 - interpreter shutdown
        pass
