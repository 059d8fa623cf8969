"""A key typed in three or more pieces, one per turn: the joined view of a conversation
(textrules.safety.scan_turns) glues the last token of a turn to the first token of the
next, and on through every turn that holds that one token only, so each piece is cut.
A conversation of short ordinary turns is left as it was."""

import pytest

from textrules.safety import scan_turns

USER_ONLY = ["user", "user", "user", "user"]


@pytest.mark.parametrize(
    ("turns", "roles", "pieces"),
    [
        # A model-gateway key in three pieces, the assistant answering between them.
        (
            [
                "报表接口的 key 分三段发，第一段 sk-proj-Hm3Qv8Ws",
                "收到，继续",
                "第二段 Ty6Bn1Xc5Lk9",
                "好的",
                "最后 Pz2Dr7Gf4Ja0，以后拉数都用它",
            ],
            ["user", "assistant", "user", "assistant", "user"],
            ["Hm3Qv8Ws", "Ty6Bn1Xc5Lk9", "Pz2Dr7Gf4Ja0"],
        ),
        # An Alibaba Cloud AccessKey id in three pieces of eight: no piece looks like anything alone.
        (["阿里云子账号 LTAI5tKp", "9Wx3Zq7M", "v2Rb6Nd4 这是 brand_A 素材桶的"], USER_ONLY[:3], ["LTAI5tKp", "9Wx3Zq7M", "v2Rb6Nd4"]),
        # A 32-character hex AppSecret in four pieces, named by the word in the first turn.
        (
            ["小程序 AppSecret 第一段 7c1e9a4f", "b3d8062e", "5fa9c7d1", "e4b2086a 完了"],
            USER_ONLY,
            ["7c1e9a4f", "b3d8062e", "5fa9c7d1", "e4b2086a"],
        ),
        # An AWS access key id in pieces of four.
        (["AKIA", "QW7E", "RT2Y", "UI9OP3AS"], USER_ONLY, ["QW7E", "RT2Y", "UI9OP3AS"]),
    ],
)
def test_a_key_in_three_or_more_pieces_loses_every_piece(turns, roles, pieces):
    clean, found = scan_turns(turns, roles=roles)
    joined = "\n".join(clean)
    assert [p for p in pieces if p in joined] == []
    assert found.credentials
    # The words around the pieces stay: only the key is cut.
    assert "[REDACTED:" in clean[-1] and all(t == c for t, c, r in zip(turns, clean, roles, strict=True) if r == "assistant")


def test_a_piece_that_follows_a_turn_of_several_tokens_is_not_glued_to_it():
    # The second turn holds two tokens: the third turn's token does not follow its first one.
    turns = ["第一段 sk-proj-Hm3Qv8Ws", "Ty6Bn1Xc5Lk9 还有 plan_b", "Pz2Dr7Gf4Ja0"]
    clean, _ = scan_turns(turns, roles=["user"] * 3)
    assert "Hm3Qv8Ws" not in clean[0] and "Ty6Bn1Xc5Lk9" not in clean[1]


@pytest.mark.parametrize(
    "turns",
    [
        ["brand_A", "美妆", "ROI", "2.1", "plan_20261101_a", "double", "check", "thanks"],
        ["budget", "上调", "20%", "CPM", "18.2", "CTR", "1.9%", "ok"],
        ["医药OTC 冷启动出价 1.8 元", "ok", "2.0", "then", "brand_B", "加价", "17%", "done"],
        ["campaign", "summer2026", "audience", "lookalike", "bidding", "manual", "pacing", "even"],
    ],
)
def test_a_chat_of_short_ordinary_turns_is_left_alone(turns):
    clean, found = scan_turns(turns, roles=["user", "assistant"] * 4)
    assert clean == turns and not found
    clean, found = scan_turns(turns, roles=["user"] * 8)
    assert clean == turns and not found


@pytest.mark.parametrize(
    "turns",
    [
        ["素材包 md5 3b7e1f9a0c4d8e2b6f5a1c9d7e3b0f48", "2400 是昨天的 GMV，今天 3100"],
        ["回滚到提交 9e1d4c7b2a0f6e3d8c5b1a7f4e2d9c6b0a3f8e51", "d41c 组的出价也一起回滚", "7788 号计划不动"],
        ["事件 0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e 已关闭", "1530 起恢复投放"],
    ],
)
def test_a_digest_and_a_number_in_the_next_turn_are_not_glued_into_a_key(turns):
    clean, found = scan_turns(turns, roles=["user"] * len(turns))
    assert clean == turns and not found


def test_the_benign_corpus_read_as_one_conversation_is_left_alone():
    from tests.textrules.safety.safety_corpus import BENIGN

    texts = [case["text"] for case in BENIGN]
    clean, found = scan_turns(texts, roles=["user"] * len(texts))
    assert [t for t, c in zip(texts, clean, strict=True) if t != c] == [] and not found
