"""The CLI acts as a real Django user: a free-text reviewer name records nobody, and the
four-eyes rule holds for the command line too."""

import pytest


@pytest.fixture
def open_item_id(db, cli):
    code, body, _ = cli(
        "ingest",
        "用户纠正：brand_A 医药OTC 出价上限改为 2.5 元，以后都按这个执行",
        "--advertiser",
        "brand_A",
        "--source",
        "user",
        "--layer",
        "L1",
        "--json",
    )
    assert code == 0 and body["action"] == "PENDING_REVIEW", (body, _)
    return str(body["review_item_id"])


@pytest.mark.parametrize("name", ["operator_zhao", "系统管理员", "cli:ops_wang"])
def test_a_free_text_reviewer_name_is_refused(cli, open_item_id, name):
    from governance.models import ReviewItem

    code, _, err = cli("review", "approve", open_item_id, "--reviewer", name, "--json")
    assert code != 0 and err.count("\n") == 1
    assert ReviewItem.objects.get(pk=open_item_id).status == "open"


def test_an_unknown_as_user_is_refused(cli, open_item_id):
    code, _, err = cli("review", "approve", open_item_id, "--as", "nobody_here", "--json")
    assert code != 0 and "nobody_here" in err and "unrecognized" not in err, err
