"""The desk shows an advertiser as the store spells it (claims keep brand_a, the page says
brand_A), and reads those spellings once for what it renders: not once per claim, nor once
per related memory in a conflict stage's trace."""

import copy

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from desk.admin.readable import readable
from desk.admin.review_compare import review_claims
from governance.models import ReviewItem, Trace
from memories.selectors import advertiser_spellings

from .seed import seed_queue


def _advertiser_lookups(queries) -> int:
    # An advertiser read in any case: LIKE on SQLite, UPPER(…) = UPPER(…) on PostgreSQL.
    return sum(1 for q in queries if '"memories_memory"."advertiser"' in q["sql"] and ("LIKE" in q["sql"] or "UPPER(" in q["sql"]))


@pytest.fixture
def conflict(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _written, parked_conflict, _parked_l1 = seed_queue()
    return ReviewItem.objects.get(pk=parked_conflict.review_item_id)


def test_the_store_spelling_of_each_code_in_one_read_per_advertiser(make_memory):
    make_memory("brand_A 美妆大促出价上调15%", advertiser="brand_A")
    make_memory("Shop_B 口红新品首发期出价下调10%", advertiser="Shop_B")
    with CaptureQueriesContext(connection) as queries:
        names = advertiser_spellings(codes=["brand_a", "BRAND_A", "shop_b", "brand_z", ""])
    assert names == {"brand_a": "brand_A", "shop_b": "Shop_B"}
    assert _advertiser_lookups(queries.captured_queries) == 3  # brand_a, shop_b, brand_z: each once
    assert advertiser_spellings(codes=[]) == {}


def test_the_review_claims_read_the_advertiser_once_for_both_claims_and_the_shared_parts(conflict):
    with CaptureQueriesContext(connection) as queries:
        claims = review_claims(conflict)
    assert _advertiser_lookups(queries.captured_queries) == 1
    candidate = {row.key: str(row.text) for row in claims["candidate_rows"]}
    target = {row.key: str(row.text) for row in claims["target_rows"]}
    assert "brand_A" in candidate["subject"] and "brand_A" in target["subject"]
    assert "brand_a" not in candidate["subject"] + target["subject"]
    assert "brand_A" in str(claims["matched"]) and "brand_a" not in str(claims["matched"])


def test_a_conflict_trace_with_many_related_memories_reads_the_advertiser_once(conflict):
    trace = Trace.objects.get(event_id=conflict.event_id, stage="conflict")
    related = trace.scores["related"]
    assert any("advertiser:brand_a" in r["matched"] for r in related), related
    # The same stage as it reads with six related memories of the advertiser.
    scores = copy.deepcopy(trace.scores)
    scores["related"] = [{**related[0], "id": related[0]["id"] + i} for i in range(6)]

    with CaptureQueriesContext(connection) as queries:
        html = str(readable(scores))
    assert _advertiser_lookups(queries.captured_queries) == 1
    assert html.count("brand_A") >= 6 and "brand_a" not in html
