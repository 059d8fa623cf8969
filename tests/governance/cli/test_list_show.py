"""`memory list` and `memory show ID` through the real management command: every list
filter, a listing of the past across a supersede, and one memory with its two versions,
the conversation it came from and the reviewer who approved the change with a note."""

import time

import pytest
from django.utils import timezone

from tests.conftest import staff_user


def _tick():
    # Validity bounds are timestamps; a moment between two steps must fall strictly inside.
    time.sleep(0.02)
    moment = timezone.now()
    time.sleep(0.02)
    return moment


def _ids(body):
    return {item["id"] for item in body["items"]}


@pytest.fixture
def shelf(db, make_memory):
    """Five memories across layers, advertisers, statuses, kinds and one category tree."""
    from memories.models import Category

    node = Category.objects.create(advertiser="brand_A", name="出价", path="医药OTC › 冷启动 › 出价", depth=2)
    rows = {
        "budget": make_memory("brand_A 双11 大促日预算定为 30万，\n超出部分次日再分配。", advertiser="brand_A", kind="semantic"),
        "rule": make_memory("医药OTC 广告不得宣称治愈效果。", layer="L1", source="human", kind="semantic"),
        "live": make_memory("brand_B 直播间投流出价跟着在线人数调，人少时降出价。", advertiser="brand_B", kind="episodic"),
        "old": make_memory("brand_A 抖音信息流素材每 7 天更换一次。", advertiser="brand_A", layer="L3", status="archived"),
        "cold": make_memory("brand_A 医药OTC 冷启动前三天出价不超过 1.2 元。", advertiser="brand_A", kind="episodic", category_node=node),
    }
    return {name: m.pk for name, m in rows.items()}


@pytest.mark.django_db
def test_list_filters_each_narrow_the_listing(cli, shelf):
    def ids(*argv):
        code, body, err = cli("list", *argv, "--json")
        assert code == 0, err
        return _ids(body)

    s = shelf
    assert ids() == {s["budget"], s["rule"], s["live"], s["cold"]}  # active by default
    assert ids("--layer", "L1") == {s["rule"]}
    assert ids("--layer", "L2,L3", "--status", "all") == {s["budget"], s["live"], s["old"], s["cold"]}
    assert ids("--advertiser", "brand_A") == {s["budget"], s["rule"], s["cold"]}  # plus global
    assert ids("--advertiser", "brand_A", "--without-global") == {s["budget"], s["cold"]}
    assert ids("--advertiser", "brand_C") == {s["rule"]}
    assert ids("--status", "archived") == {s["old"]}
    assert ids("--status", "active,archived", "--advertiser", "brand_A", "--without-global") == {s["budget"], s["old"], s["cold"]}
    assert ids("--kind", "episodic") == {s["live"], s["cold"]}
    assert ids("--kind", "semantic", "--layer", "L2") == {s["budget"]}
    assert ids("--category", "医药OTC") == {s["cold"]}
    assert ids("--category", "医药OTC/冷启动") == {s["cold"]}
    assert ids("--category", "美妆") == set()


@pytest.mark.django_db
def test_list_json_shape_limit_and_one_line_per_memory(cli, shelf):
    code, body, _ = cli("list", "--limit", "2", "--json")
    assert code == 0 and set(body) >= {"items", "total"} and body["total"] == 4
    newest = [item["id"] for item in body["items"]]
    assert newest == sorted(shelf[n] for n in ("budget", "rule", "live", "cold"))[::-1][:2]
    assert {"id", "layer", "advertiser", "status", "version", "content", "kind", "category_path"} <= set(body["items"][0])

    code, out, _ = cli("list", "--advertiser", "brand_A")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3  # the budget's line break does not split its line
    budget = next(line for line in lines if line.startswith(f"#{shelf['budget']} "))
    assert "brand_A" in budget and "active" in budget and "v1" in budget and "30万， 超出部分" in budget
    assert "global" in next(line for line in lines if line.startswith(f"#{shelf['rule']} "))

    code, out, _ = cli("list", "--limit", "1")
    assert out.splitlines()[-1].startswith("(1 of 4")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "argv, needle",
    [
        (("--status", "gone"), "unknown status 'gone'"),
        (("--layer", "L7"), "unknown layer"),
        (("--kind", "daily"), "--kind must be"),
        (("--limit", "0"), "--limit must be between 1 and 500"),
        (("--without-global",), "needs --advertiser"),
        (("--as-of", "昨天"), "--as-of must be an ISO-8601 time"),
    ],
)
def test_list_bad_arguments_are_one_line_errors(cli, argv, needle):
    code, out, err = cli("list", *argv)
    assert code == 1 and needle in err and err.count("\n") == 1 and not out


@pytest.fixture
def superseded(db, make_memory, django_capture_on_commit_callbacks):
    from memories.storage import memory_supersede

    v1 = make_memory("brand_A 双11 大促日预算定为 30万，超出部分次日再分配。", advertiser="brand_A")
    before = _tick()
    with django_capture_on_commit_callbacks(execute=True):
        v2 = memory_supersede(old=v1, content="brand_A 双11 大促日预算上调到 50万，超出部分次日再分配。")
    return {"v1": v1.pk, "v2": v2.pk, "before": before, "after": _tick()}


@pytest.mark.django_db
def test_list_as_of_lists_the_version_valid_then(cli, superseded):
    def listing(*argv):
        code, body, err = cli("list", "--advertiser", "brand_A", *argv, "--json")
        assert code == 0, err
        return body

    assert _ids(listing()) == {superseded["v2"]}
    then = listing("--as-of", superseded["before"].isoformat())
    assert _ids(then) == {superseded["v1"]} and then["as_of"] == superseded["before"].isoformat()
    assert then["items"][0]["status"] == "superseded"  # the row's status today
    assert _ids(listing("--as-of", superseded["after"].isoformat())) == {superseded["v2"]}
    # --status narrows a past listing by today's status: what was valid then and replaced since.
    assert _ids(listing("--as-of", superseded["before"].isoformat(), "--status", "superseded")) == {superseded["v1"]}
    assert _ids(listing("--as-of", superseded["after"].isoformat(), "--status", "superseded")) == set()
    assert listing("--as-of", "2020-01-01T00:00:00+08:00")["items"] == []
    code, out, _ = cli("list", "--as-of", "2020-01-01")
    assert code == 0 and out.startswith("no memories match (as of 2020-01-01T00:00:00+00:00)")


@pytest.fixture
def approved_update(ingest, cli, no_sampled_audit, django_user_model):
    """brand_A's OTC bid cap said in a conversation (v1); a later correction parked as a
    conflict and approved by lina with a note (v2)."""
    staff_user(django_user_model, "lina", "operator")
    first = ingest(
        None,
        messages=[
            {"role": "assistant", "content": "brand_A 医药OTC 类目现在出价多少合适？"},
            {"role": "user", "content": "用户纠正：brand_A 医药OTC类目出价不要超过1.5元，以后按这个执行"},
        ],
        advertiser="brand_A",
        session_id="s-cli-1",
    )
    assert first.action == "WRITE", first.reasons
    parked = ingest(
        None,
        messages=[{"role": "user", "content": "用户纠正：brand_A 医药OTC类目出价上限改为2元，以后按这个执行"}],
        advertiser="brand_A",
        session_id="s-cli-2",
    )
    assert parked.action == "PENDING_REVIEW", parked.reasons
    code, body, err = cli("review", "approve", str(parked.review_item_id), "--as", "lina", "--note", "客户确认：上限改为2元", "--json")
    assert code == 0 and body["action"] == "UPDATE", err
    return {"v1": first.memory_id, "v2": body["memory_id"], "item": parked.review_item_id}


@pytest.mark.django_db
def test_show_gives_versions_claim_source_and_who_approved(cli, approved_update):
    ids = approved_update
    code, body, err = cli("show", str(ids["v2"]), "--json")
    assert code == 0, err
    assert body["id"] == ids["v2"] and body["version"] == 2 and body["status"] == "active" and body["advertiser"] == "brand_A"
    assert body["source"] == "user"  # who produced the text, as in every memory's JSON

    first, second = body["versions"]
    assert (first["id"], first["version"], first["status"]) == (ids["v1"], 1, "superseded")
    assert (second["id"], second["version"], second["status"]) == (ids["v2"], 2, "active")
    assert first["valid_to"] is not None and second["valid_to"] is None and second["valid_from"] >= first["valid_from"]
    assert first["changes"] == [] and first["decided_by"]["origin"] == "funnel"
    assert any("1.5" in c["removed"] for c in second["changes"]) and any("2" in c["added"] for c in second["changes"])
    assert second["decided_by"] | {"at": None} == {
        "origin": "approval",
        "by": "lina",
        "note": "客户确认：上限改为2元",
        "at": None,
        "review_item_id": ids["item"],
        "event_id": second["decided_by"]["event_id"],
    }

    assert "bid" in body["claim"]["levers"]
    assert "lever: bid" in body["claim_text"] and "2元" in body["claim_text"]
    assert body["came_from"]["session_id"] == "s-cli-2"
    assert [(t["role"], t["content"]) for t in body["came_from"]["turns"]] == [
        ("user", "用户纠正：brand_A 医药OTC类目出价上限改为2元，以后按这个执行")
    ]
    review = next(r for r in body["reviews"] if r["id"] == ids["item"])
    assert (review["kind"], review["status"], review["reviewer"], review["note"]) == (
        "conflict",
        "approved",
        "lina",
        "客户确认：上限改为2元",
    )

    # The older version keeps the turns it came from, not its successor's.
    code, older, _ = cli("show", str(ids["v1"]), "--json")
    assert older["id"] == ids["v1"] and [v["id"] for v in older["versions"]] == [ids["v1"], ids["v2"]]
    assert older["came_from"]["session_id"] == "s-cli-1" and [t["role"] for t in older["came_from"]["turns"]] == ["assistant", "user"]


@pytest.mark.django_db
def test_show_prints_the_story_for_a_person(cli, approved_update):
    code, out, _ = cli("show", str(approved_update["v2"]))
    assert code == 0
    assert out.splitlines()[0].startswith(f"#{approved_update['v2']} L2 · brand_A · active · v2")
    assert f'approved by lina (review #{approved_update["item"]}), note "客户确认：上限改为2元"' in out
    assert "change: " in out and "→" in out
    assert "source: session s-cli-2" in out and "[0] user: 用户纠正" in out
    assert "claim  subject: advertiser" in out


@pytest.mark.django_db
def test_show_as_of_answers_with_the_version_valid_then(cli, superseded):
    code, body, _ = cli("show", str(superseded["v2"]), "--as-of", superseded["before"].isoformat(), "--json")
    assert code == 0 and body["id"] == superseded["v1"] and "30万" in body["content"]
    assert [v["id"] for v in body["versions"]] == [superseded["v1"]] and body["as_of"] == superseded["before"].isoformat()
    code, body, _ = cli("show", str(superseded["v1"]), "--as-of", superseded["after"].isoformat(), "--json")
    assert body["id"] == superseded["v2"] and [v["version"] for v in body["versions"]] == [1, 2]
    assert body["versions"][1]["changes"] and body["versions"][0]["decided_by"]["origin"] is None  # no event wrote them


@pytest.mark.django_db
@pytest.mark.parametrize(
    "argv, needle",
    [
        (("424242",), "memory 424242 not found"),
        (("0",), "memory ids start at 1"),
        (("abc",), "invalid int value"),
        (("{v1}", "--as-of", "2020-01-01"), "had no valid version at 2020-01-01"),
        (("{v1}", "--as-of", "下周一"), "--as-of must be an ISO-8601 time"),
    ],
)
def test_show_errors_are_one_line(cli, superseded, argv, needle):
    argv = [a.format(v1=superseded["v1"]) for a in argv]
    code, out, err = cli("show", *argv)
    assert code in (1, 2) and needle in err and err.count("\n") == 1 and not out
