"""The shapes and places issue 24 found unguarded: hex secrets named by a word whatever
their length, Chinese cloud vendors' keys, database passwords on a command line,
percent-encoded tokens, secret-named keys in any spelling and at any depth, personal data
with separators, passports, a key split across turns, codes that hold a credential, and
shapes an operator adds in configuration. Plain digests and ad-ops numbers stay as they are."""

import pytest

from textrules.safety import SecretInCode, refuse_secret_code, scan_data, scan_text, scan_turns
from textrules.safety.names import is_secret_name

HEX32 = "7c1e9a4f0b2d8e6a3f5c9b1d7e2a4c6f"
HEX40 = "a94c2e7f1b8d3e60f5c1a9e27b4d8c03f6e1a5d9"
HEX64 = "3e7a1c9f5b2d8e4a6c0f1b3d5e7a9c2f4b6d8e0a1c3e5f7b9d2a4c6e8f0b1d3e"


@pytest.mark.parametrize(
    "text, secret",
    [
        (f"公众号后台的 AppSecret {HEX32} 上周换过了", HEX32),
        (f"小程序密钥 {HEX40}，投放回传要用", HEX40),
        (f"webhook signing secret: {HEX64}", HEX64),
        (f"回传接口 token {HEX32[:20]} 只给 brand_A 用", HEX32[:20]),
    ],
)
def test_hex_named_by_a_secret_word_is_cut_whatever_its_length(text, secret):
    scan = scan_text(text)
    assert secret not in scan.text and scan.credentials


@pytest.mark.parametrize(
    "text",
    [
        f"素材文件 md5 校验值 {HEX32}，与上次一致",
        f"commit {HEX40} 修复了出价回写",
        f"报表快照 sha256 {HEX64} 已归档",
    ],
)
def test_a_digest_without_a_secret_word_stays(text):
    assert scan_text(text).text == text


@pytest.mark.parametrize(
    "text, secret, kind",
    [
        ("阿里云 OSS 素材桶用的 LTAI5tRw8pQx2ZkN7vBm3cYd", "LTAI5tRw8pQx2ZkN7vBm3cYd", "alibaba_cloud_accesskey"),
        ("腾讯云 SecretId 是 AKIDq7Xw2Lm9Rt4Vb8Nc1Pz6Ks3Hd5Jf0Ga", "AKIDq7Xw2Lm9Rt4Vb8Nc1Pz6Ks3Hd5Jf0Ga", "tencent_cloud_secretid"),
        ("百度统计接口 AK：Wq4Ne8Rt2Yu6Io0Pa3Sd7Fg1Hj5Kl9Zx", "Wq4Ne8Rt2Yu6Io0Pa3Sd7Fg1Hj5Kl9Zx", "cloud_ak_sk"),
        ("百度 SK=Mn3Bv7Cx1Za5Sd9Fg2Hj6Kl0Qw4Er8Ty", "Mn3Bv7Cx1Za5Sd9Fg2Hj6Kl0Qw4Er8Ty", "cloud_ak_sk"),
    ],
)
def test_chinese_cloud_vendor_keys(text, secret, kind):
    scan = scan_text(text)
    assert secret not in scan.text and kind in scan.credentials


def test_a_vendor_secret_written_near_its_id_goes_too():
    text = "阿里云子账号 LTAI5tRw8pQx2ZkN7vBm3cYd 对应的 secret 在这：Xy7kP2mQ9rT4vW8zB3nD6fH1jL5sA0"
    out = scan_text(text).text
    assert "Xy7kP2mQ9rT4vW8zB3nD6fH1jL5sA0" not in out and "LTAI5t" not in out


@pytest.mark.parametrize(
    "text, secret",
    [
        ("导数据用 mysql -h 10.2.3.4 -u report -pQd7#kx92Lm 连报表库", "Qd7#kx92Lm"),
        ("每晚跑 mysqldump -uroot -p'Hz82!plmQ' ads_db > 备份.sql", "Hz82!plmQ"),
        ("psql --password=Wv3$tq8Z -d 投放库 查一下昨天的消耗", "Wv3$tq8Z"),
        ("缓存用 redis-cli -h 10.0.0.9 -a Rk55xq0pN 连", "Rk55xq0pN"),
        ("定时任务里写着 PGPASSWORD=Lx0_9kT2ab pg_dump ads", "Lx0_9kT2ab"),
    ],
)
def test_a_database_password_on_a_command_line(text, secret):
    scan = scan_text(text)
    assert secret not in scan.text and "database_password" in scan.credentials


def test_a_port_flag_is_not_a_password():
    text = "mysql -h 10.2.3.4 -P 3306 -u report 连报表库"
    assert scan_text(text).text == text


@pytest.mark.parametrize(
    "text, secret",
    [
        ("回调地址 https://cb.example.cn/notify?t=sk%5Flive%5F4eC39HqLyjWDarjtT1zdp7dc 别外传", "4eC39HqLyjWDarjtT1zdp7dc"),
        ("复制出来的是 %6C%67%78%5F%30%61%31%62%32%63%33%64%5F%5A%6D%39%76%59%6D%46%79%59%6D%46%36%63%58%56%34", "%5A%6D%39%76"),
        ("密码%3A%20Pq8%21vLm2Zx 是财务给的", "Pq8%21vLm2Zx"),
    ],
)
def test_percent_encoded_secrets_are_decoded_before_scanning(text, secret):
    scan = scan_text(text)
    assert secret not in scan.text and scan.credentials


@pytest.mark.parametrize(
    "name", ["dbPassword", "appsecret", "reportApiSecret", "DB_PASSWORD", "支付密码", "mysql.password", "pinCode", "AccessKeyId"]
)
def test_secret_names_in_any_spelling(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["password_hint", "token_count", "tokens_in", "max_tokens", "keyword", "budget", "出价", "monkey"])
def test_names_that_only_mention_a_secret(name):
    assert not is_secret_name(name)


def test_everything_under_a_secret_named_key_at_any_depth_and_a_numeric_pin():
    data = {
        "渠道": "千川",
        "dbPassword": "Tz4!short",
        "报表": {"reportApiSecret": "n0tRand0m", "凭证": {"主": {"值": "abc123", "备用": ["q1", 77]}}},
        "支付密码": 830215,
        "出价": 1.8,
    }
    clean, found = scan_data(data)
    flat = str(clean)
    for value in ("Tz4!short", "n0tRand0m", "abc123", "q1", "77", "830215"):
        assert value not in flat
    assert clean["渠道"] == "千川" and clean["出价"] == 1.8 and found.credentials == ("secret_keyword",)


@pytest.mark.parametrize("text, secret", [("财务说支付密码是 830215，别记错", "830215"), ("门禁 PIN：4471", "4471")])
def test_a_numeric_pin_said_in_words(text, secret):
    assert secret not in scan_text(text).text


def test_a_password_length_rule_is_not_a_pin():
    text = "后台密码至少 8 位，含大小写和数字"
    assert scan_text(text).text == text


@pytest.mark.parametrize(
    "text, kind, gone",
    [
        ("客户手机 139.2233.4455 晚上回电", "phone", "139.2233.4455"),
        ("联系人电话 (137) 6655-8899", "phone", "6655-8899"),
        ("身份证 110105 19491231 002X 已核验", "id_card", "19491231"),
        ("证件号 1101-0519-4912-3100-2X", "id_card", "4912-3100"),
        ("护照号 E28813579，签证下周到", "passport", "E28813579"),
        ("passport no. K4738291 (UK)", "passport", "K4738291"),
    ],
)
def test_personal_data_with_separators_and_passports(text, kind, gone):
    scan = scan_text(text)
    assert kind in scan.personal and gone not in scan.text and not scan.credentials


@pytest.mark.parametrize(
    "text", ["预算 1.3 1.5 1.8 2.0 逐档上调", "ROI 138.1234 是四舍五入前的值", "出价 13.5 元，CPM 18.2，CTR 1.9%", "计划 E 组第 2 轮测试"]
)
def test_numbers_in_ad_ops_text_are_not_personal_data(text):
    assert scan_text(text).text == text


def test_a_key_split_across_two_user_turns_loses_both_halves():
    turns = ["我分两次发，前半段 sk-proj-Ab12Cd34Ef56", "好的", "Gh78Ij90Kl12Mn34Op56 这是后半段"]
    clean, found = scan_turns(turns, roles=["user", "assistant", "user"])
    joined = " ".join(clean)
    assert "Ab12Cd34Ef56" not in joined and "Gh78Ij90Kl12Mn34Op56" not in joined and found.credentials
    assert clean[1] == "好的"


def test_a_hex_secret_split_across_turns():
    clean, _ = scan_turns(["微信 AppSecret 前半段 3f2a9c0e8b1d4a7f", "后半段 6e5d4c3b2a1f0e9d"])
    assert "6e5d4c3b2a1f0e9d" not in clean[1]


def test_an_ordinary_conversation_is_left_alone():
    turns = ["brand_A 美妆 ROI 2.1，plan_20261101_a 要不要加预算？", "建议加 20%", "好的，按 plan_20261101_b 的口径加"]
    assert scan_turns(turns, roles=["user", "assistant", "user"])[0] == turns


@pytest.mark.parametrize("code", ["sk_live_4eC39HqLyjWDarjtT1zdp7dc", "LTAI5tRw8pQx2ZkN7vBm3cYd", "13822334455", "password=Qx7abc99"])
def test_a_code_that_looks_like_a_credential_is_refused(code):
    with pytest.raises(SecretInCode, match="^advertiser looks like a credential"):
        refuse_secret_code(code, field_name="advertiser")


@pytest.mark.parametrize(
    "code", ["brand_A", "医药OTC", "plan_20261101_a", "oc:5d41402abc4b2a76b9719d911017c5925d41402a", "distill:3fa8c2d9e1b04f7a6c5d2e19:0-1"]
)
def test_ordinary_codes_and_random_keys_pass(code):
    assert refuse_secret_code(code, field_name="idempotency_key") == code


def test_an_operator_adds_a_shape_in_configuration(env):
    text = "内部网关令牌 ADX-7788-QWER-0091 只在机房用"
    assert scan_text(text).text == text
    env(MEMORY_SAFETY_EXTRA_PATTERNS='["ADX-\\\\d{4}-[A-Z]{4}-\\\\d{4}"]')
    scan = scan_text(text)
    assert "ADX-7788" not in scan.text and "configured_secret" in scan.credentials


def test_a_broken_configured_pattern_names_the_variable(env):
    from lingix_config import ConfigurationError

    env(MEMORY_SAFETY_EXTRA_PATTERNS="[unclosed")
    with pytest.raises(ConfigurationError, match="MEMORY_SAFETY_EXTRA_PATTERNS"):
        scan_text("任意文本")
