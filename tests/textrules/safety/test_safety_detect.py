"""textrules.safety on its own: every hostile corpus case is found and cut out, every
benign line and the demo memories pass untouched, and the normalising views map back."""

import json

import pytest

from lingix_site.demo import DEMO_FILE
from tests.textrules.safety.safety_corpus import BENIGN, HOSTILE, leaks
from textrules.safety import REDACTED, redact, scan_data, scan_text
from textrules.safety.credentials import find_credentials
from textrules.safety.normalise import decoded_blobs, folded, joined
from textrules.safety.personal import id18_valid, luhn_valid


def _scan_case(case: dict):
    if case["via"] == "ingest":
        scan = scan_text(case["text"])
        return scan.text, scan
    clean, found = scan_data({"summary": case["summary"], "data": case["data"]})
    return json.dumps(clean, ensure_ascii=False), found


def test_the_corpus_is_large_and_varied_enough():
    credentials = [c for c in HOSTILE if c["kind"] == "credential"]
    personal = [c for c in HOSTILE if c["kind"] == "personal"]
    assert len(credentials) >= 40 and len(personal) >= 15 and len(BENIGN) >= 40
    ids = [c["id"] for c in HOSTILE + BENIGN]
    assert len(ids) == len(set(ids))
    variants = {c["variant"] for c in credentials}
    assert {"spaced", "zero_width", "full_width", "base64", "url", "json"} <= variants
    families = {c["family"] for c in credentials}
    assert {"aws", "slack", "stripe", "google", "lgx", "db_url", "jwt", "private_key", "github", "keyword"} <= families


@pytest.mark.parametrize("case", HOSTILE, ids=[c["id"] for c in HOSTILE])
def test_every_hostile_case_is_found_and_nothing_of_it_remains(case):
    stored, found = _scan_case(case)
    kinds = found.credentials if case["kind"] == "credential" else found.personal
    assert kinds, f"{case['id']} not detected"
    assert leaks(stored.encode("utf-8"), case) == []
    if case["kind"] == "credential":
        assert "[REDACTED:" in stored
    else:
        assert not found.credentials  # personal data is masked, never mistaken for a key


@pytest.mark.parametrize("case", BENIGN, ids=[c["id"] for c in BENIGN])
def test_benign_ad_ops_text_is_left_alone(case):
    scan = scan_text(case["text"])
    assert (scan.text, scan.credentials, scan.personal) == (case["text"], (), ())


def test_the_demo_memories_hold_nothing_to_redact():
    rows = [json.loads(line) for line in DEMO_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 40
    flagged = [row["content"] for row in rows if scan_data(row)[1]]
    assert flagged == []


@pytest.mark.parametrize("case", [c for c in HOSTILE if c["via"] == "ingest"][::5], ids=lambda c: c["id"])
def test_redacting_twice_changes_nothing(case):
    once = redact(case["text"])
    assert redact(once) == once and not scan_text(once)


def test_a_finding_reports_kinds_never_values():
    scan = scan_text("用户说千川后台密码是 Qx7!abcDEF12#26 手机 13812345678")
    dumped = json.dumps(scan.as_dict())
    assert scan.credentials == ("secret_keyword",) and scan.personal == ("phone",)
    assert "Qx7" not in dumped and "5678" not in dumped


def test_folded_view_maps_full_width_and_invisible_characters_back():
    text = "密钥 ｓｋ\u200b_live 完"
    view = folded(text)
    assert view.text == "密钥 sk_live 完"
    start = view.text.index("sk_live")
    assert view.original_span(start, start + len("sk_live")) == (3, 11)


def test_joined_view_glues_only_token_pieces():
    view = joined(folded("key AIzaSy Dk3 完成 ROI 3.2"))
    assert "AIzaSyDk3" in view.text and "完成 ROI" in view.text


def test_base64_blobs_are_decoded_only_when_they_hold_text():
    import base64

    blob = base64.b64encode(b"token=xoxb-1234").decode()
    assert [d for *_, d in decoded_blobs(f"配置 {blob} 完")] == ["token=xoxb-1234"]
    assert list(decoded_blobs("A1b2C3d4E5f6G7h8I9j0K1l2M3n4")) == []


def test_a_key_longer_than_the_library_pattern_leaves_no_tail():
    key = "sk_live_" + "a1B2c3D4e5F6g7H8i9J0k1L2" + "Zz9Yy8Xx7Ww6"
    out = redact(f"密钥 {key}，请保存")
    assert "Zz9Yy8" not in out and out == "密钥 [REDACTED:stripe_access_key]，请保存"


def test_the_whole_private_key_block_goes():
    text = "私钥：\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yQ\nAoGBAM2fJ\n-----END EC PRIVATE KEY-----\n谢谢"
    out = redact(text)
    assert "MHcCAQ" not in out and "AoGBAM" not in out and out.endswith("谢谢")


def test_aws_secret_next_to_its_key_id_is_found_without_a_keyword():
    kinds = {f.kind for f in find_credentials("AKIAQWERTYUIOPASDFGH wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8Kq1Abcd")}
    assert {"aws_access_key", "aws_secret_access_key"} <= kinds


def test_scan_data_recurses_into_keys_lists_and_numbers():
    data = {"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx": "渠道", "owners": [{"mobile": 13722223333}], "password": "hunter22"}
    clean, found = scan_data(data)
    text = json.dumps(clean, ensure_ascii=False)
    assert "xoxb" not in text and "13722223333" not in text and "hunter22" not in text
    assert set(found.credentials) >= {"slack_token", "secret_keyword"} and found.personal == ("phone",)
    assert clean["password"] == REDACTED.format(kind="secret_keyword")


@pytest.mark.parametrize("number,ok", [("11010519491231002X", True), ("110105194912310021", False), ("110105194902300027", False)])
def test_id_numbers_need_their_check_digit_and_a_real_birth_date(number, ok):
    assert id18_valid(number) is ok


def test_luhn_and_card_prefixes_keep_ad_ids_out():
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    # A 19-digit ad id that passes Luhn but starts like no card issuer stays as it is.
    ad_id = next(f"178123456789012345{d}" for d in "0123456789" if luhn_valid(f"178123456789012345{d}"))
    assert redact(f"广告 ID {ad_id} 消耗突增") == f"广告 ID {ad_id} 消耗突增"


def test_masked_personal_data_keeps_only_the_last_four():
    out = redact("联系 +86 138-1234-5678，卡号 6222 0210 0112 3456 78")
    assert "5678" in out and "1234-5678" not in out and "13812345678" not in out


def test_a_trusted_write_is_refused_with_the_line_named_and_personal_data_masked():
    from memories.exceptions import InvalidInput
    from textrules.safety import CredentialRefused, refuse_credentials

    row = {"layer": "L1", "content": "预算调整须审批，联系 13812345678", "data": {"note": "ok"}}
    clean = refuse_credentials(row, where="line 3")
    assert "13812345678" not in clean["content"] and clean["layer"] == "L1"
    slack = next(c for c in HOSTILE if c["id"] == "slack-01")
    with pytest.raises(CredentialRefused, match=r"^line 7: holds a credential \(.*slack_token.*\)") as caught:
        refuse_credentials({"content": slack["text"]}, where="line 7")
    assert isinstance(caught.value, InvalidInput) and slack["value"] not in str(caught.value)
    assert refuse_credentials("出价 1.5 元") == "出价 1.5 元"
