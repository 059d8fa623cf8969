"""Run by test_search_threads: a hybrid search during which another thread commits a write
and moves the shared vector index on, at the moment the keyword arm asks for the other
arms' candidates. Prints one JSON line: the index fetches made during the search.

A real file database in WAL mode (the test suite's shared in-memory one cannot hold a
reader and a writer at once), the real write path, real threads."""

import dataclasses
import json
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench._common import setup_throwaway_django  # noqa: E402

setup_throwaway_django("snapshot-race")

from django.db import connection  # noqa: E402

from governance.write.hard_rules import Authority, WriteOrigin  # noqa: E402
from governance.write.memory import Proposal, governed_write  # noqa: E402
from memories.search import hybrid, vectors  # noqa: E402
from memories.search.filters import SearchFilter  # noqa: E402

OPERATOR = Authority(origin=WriteOrigin.APPROVAL, actor="reviewer_li", person=True, operator=True)


def write(text: str, advertiser: str = "brand_A") -> None:
    governed_write(proposal=Proposal(content=text, layer="L2", source="tool", advertiser=advertiser), authority=OPERATOR)


# More matches than the keyword arm reads in its first chunk (64 rows), so that its
# statement is still open when it asks for the other arms.
for percent in range(10, 160):
    write(f"双11当天爆发期出价上调{percent}%，预算跟着放开")
vectors.vector_index.refresh()

fetches: list[str] = []
real_fetch = vectors.VectorIndex._fetch


def recording_fetch(self, since, *args, **kwargs):
    fetches.append("full" if since is None else "since")
    return real_fetch(self, since, *args, **kwargs)


vectors.VectorIndex._fetch = recording_fetch
real_entity_arm = hybrid.entity_candidates


def entity_arm_after_another_request(*args, **kwargs):
    def other_request():
        write("双11预热期CPM上涨，出价节奏按大促模板", "brand_B")
        vectors.vector_index.refresh()
        connection.close()

    thread = threading.Thread(target=other_request)
    thread.start()
    thread.join()
    return real_entity_arm(*args, **kwargs)


hybrid.entity_candidates = entity_arm_after_another_request
narrow = dataclasses.replace(hybrid.DEFAULT_RANKING, candidates=2)
hits = hybrid.hybrid_search("双11 出价", SearchFilter(), top_k=5, config=narrow).hits
print(json.dumps({"fetches": fetches, "hits": len(hits)}))
