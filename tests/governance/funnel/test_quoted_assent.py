"""A question never confirms, nor a confirmation quoted back: the user's turn after an
assistant's suggestion says yes only in words of its own, outside quotation marks, and
only then is the suggestion written as the user's (user_confirmed). The
real funnel (offline judge) on SQLite, through event_ingest with role-tagged turns."""

import pytest

from memories.models import Memory

pytestmark = pytest.mark.django_db

SUGGESTION = "建议把 brand_A 医药OTC 冷启动期出价上调到 2.5 元，这样起量更快。"


def _answer(ingest, reply):
    messages = [{"role": "assistant", "content": SUGGESTION}, {"role": "user", "content": reply}]
    return ingest(None, messages=messages, advertiser="brand_A")


@pytest.mark.parametrize(
    "reply",
    [
        "“好的，就这么办”——这是你替我说的吧",
        "你上次写的「可以，就按这个来」不是我的意思",
        '记录里那句 "ok, go ahead" 是测试账号发的',
        "真的要上调到 2.5 元吗？",
    ],
)
def test_a_quoted_or_questioned_confirmation_does_not_confirm_the_suggestion(ingest, no_sampled_audit, reply):
    decision = _answer(ingest, reply)
    # The user's own turn may be kept as what the user said; the suggestion is never
    # credited to the user.
    assert not Memory.objects.filter(source_attribution="user_confirmed").exists(), decision.reasons
    assert not Memory.objects.filter(content__contains="起量更快").exists()


@pytest.mark.parametrize("reply", ["好的，就按“冷启动方案B”来", "可以，就这么办"])
def test_a_yes_in_the_users_own_words_still_confirms(ingest, no_sampled_audit, reply):
    decision = _answer(ingest, reply)
    assert decision.action == "WRITE", decision.reasons
    assert Memory.objects.get(pk=decision.memory_id).source_attribution == "user_confirmed"
