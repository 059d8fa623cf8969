"""Reading the past (`as_of`): a superseded memory answers with the version valid then, an
archived one is visible before its archive time, an expired L3 fact only while it was
live. API (search, get with its history, recall), the CLI and the selectors."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone


def _tick():
    # Validity bounds are timestamps; a moment between two steps must fall strictly inside.
    time.sleep(0.02)
    moment = timezone.now()
    time.sleep(0.02)
    return moment


@pytest.fixture
def history(db, make_memory, django_capture_on_commit_callbacks):
    """brand_A's 双11 budget written, then raised (a new version); a 抖音 note archived; an
    L3 CPM observation that expired. Returns the ids and the moments between the steps."""
    from governance.lifecycle.expire import memories_expire
    from governance.write.hard_rules import Authority, WriteOrigin
    from governance.write.memory import governed_set_status
    from memories.constants import Status
    from memories.storage import memory_supersede

    v1 = make_memory("brand_A 双11 大促日预算定为 30万，超出部分次日再分配。", advertiser="brand_A", layer="L2")
    archived = make_memory("brand_A 抖音信息流素材每 7 天更换一次，CTR 连续下降即替换。", advertiser="brand_A", layer="L2")
    live_l3 = make_memory(
        "brand_A 双11 预热期 CPM 较上周上涨 25%，出价需同步上调。",
        advertiser="brand_A",
        layer="L3",
        source="tool",
        expires_at=timezone.now() + timedelta(milliseconds=300),
    )
    before = _tick()
    with django_capture_on_commit_callbacks(execute=True):
        v2 = memory_supersede(old=v1, content="brand_A 双11 大促日预算上调到 50万，超出部分次日再分配。")
    governed_set_status(
        memory=archived, status=Status.ARCHIVED, authority=Authority(origin=WriteOrigin.ADMIN_EDIT, actor="运营小王", person=True)
    )
    time.sleep(0.35)
    assert memories_expire(now=timezone.now())["expired"] == 1
    after = _tick()
    return {"v1": v1.pk, "v2": v2.pk, "archived": archived.pk, "l3": live_l3.pk, "before": before, "after": after}


@pytest.mark.django_db
def test_search_as_of_answers_with_what_was_valid_then(history, brand_a):
    def ids(**extra):
        response = brand_a.post("/search", {"query": "brand_A 双11 大促日预算 抖音素材 CPM", "top_k": 10, **extra})
        assert response.status_code == 200, response.content
        return {hit["id"] for hit in response.json()["results"]}, response.json()

    now_ids, _ = ids()
    assert history["v2"] in now_ids and history["v1"] not in now_ids
    assert history["archived"] not in now_ids and history["l3"] not in now_ids

    then_ids, body = ids(as_of=history["before"].isoformat())
    assert history["v1"] in then_ids and history["v2"] not in then_ids
    assert history["archived"] in then_ids and history["l3"] in then_ids
    assert body["as_of"] == history["before"].isoformat()

    after_ids, _ = ids(as_of=history["after"].isoformat())
    assert after_ids == now_ids


@pytest.mark.django_db
def test_search_as_of_before_anything_existed_finds_nothing(history, brand_a):
    body = brand_a.post("/search", {"query": "双11 预算", "as_of": "2020-01-01T00:00:00+08:00"}).json()
    assert body["results"] == []


@pytest.mark.django_db
def test_get_as_of_returns_the_version_valid_then_and_its_history_so_far(history, brand_a):
    then = brand_a.get(f"/memories/{history['v2']}", as_of=history["before"].isoformat()).json()
    assert then["id"] == history["v1"] and "30万" in then["content"]
    assert [m["id"] for m in then["history"]] == [history["v1"]]
    now = brand_a.get(f"/memories/{history['v2']}").json()
    assert now["id"] == history["v2"] and [m["id"] for m in now["history"]] == [history["v1"], history["v2"]]
    # Asked by the old id, the present answers with the version valid now.
    assert brand_a.get(f"/memories/{history['v1']}", as_of=history["after"].isoformat()).json()["id"] == history["v2"]
    assert brand_a.get(f"/memories/{history['archived']}", as_of=history["before"].isoformat()).status_code == 200
    assert brand_a.get(f"/memories/{history['archived']}", as_of=history["after"].isoformat()).status_code == 404
    assert brand_a.get(f"/memories/{history['l3']}", as_of=history["after"].isoformat()).status_code == 404


@pytest.mark.django_db
def test_as_of_input_errors_are_422(history, brand_a):
    assert brand_a.post("/search", {"query": "预算", "as_of": "双11那天"}).status_code == 422
    assert brand_a.get(f"/memories/{history['v2']}", as_of="yesterday").status_code == 422


@pytest.mark.django_db
def test_recall_as_of_injects_the_old_version(history, brand_a):
    body = brand_a.post("/recall", {"query": "brand_A 双11 大促日预算是多少", "as_of": history["before"].isoformat(), "force": True}).json()
    ids = {m["id"] for m in body["memories"]}
    assert history["v1"] in ids and history["v2"] not in ids


@pytest.mark.django_db
def test_cli_search_as_of(history, cli):
    code, body, _ = cli(
        "search", "brand_A 双11 大促日预算", "--advertiser", "brand_A", "--top-k", "10", "--as-of", history["before"].isoformat(), "--json"
    )
    assert code == 0
    ids = {hit["id"] for hit in body["results"]}
    assert history["v1"] in ids and history["v2"] not in ids and body["as_of"] == history["before"].isoformat()
    code, _, err = cli("search", "预算", "--as-of", "双11那天")
    assert code == 1 and "--as-of must be an ISO-8601 time" in err and "Traceback" not in err


@pytest.mark.django_db
def test_deep_search_as_of(history):
    from memories.search.deep import deep_search

    response = deep_search(query="brand_A 双11 大促日预算", advertisers=("brand_A",), top_k=10, as_of=history["before"])
    ids = {r.memory.pk for r in response.results}
    assert history["v1"] in ids and history["v2"] not in ids
