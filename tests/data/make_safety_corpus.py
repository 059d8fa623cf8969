"""Writes safety_hostile.jsonl: synthetic credentials and personal data (random values in the
right formats, never real keys) in the ways people and agents paste them. Run it from
the repository root; a fixed seed keeps the committed file reproducible.

Each line: id, family, kind ("credential" | "personal"), variant, via ("ingest" |
"trigger"), text (or summary + data for a trigger), value (what must not be stored, in
any form) and surface (the literal characters as they appear in the text, when they
differ from value)."""
from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

rng = random.Random(20261201)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rand(chars: str, n: int) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def spaced(value: str, every: int = 6) -> str:
    return " ".join(value[i:i + every] for i in range(0, len(value), every))


def zero_width(value: str) -> str:
    marks = "\u200b\u200c\u200d\u2060\ufeff"
    return "".join(ch + (marks[i % len(marks)] if i % 3 == 2 else "") for i, ch in enumerate(value))


def full_width(value: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value)


def luhn_complete(body: str) -> str:
    for d in "0123456789":
        digits = body + d
        total = 0
        for i, c in enumerate(reversed(digits)):
            n = int(c)
            if i % 2 == 1:
                n = n * 2 - 9 if n > 4 else n * 2
            total += n
        if total % 10 == 0:
            return digits
    raise AssertionError


def id18(region: str, birth: str, seq: str) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    body = region + birth + seq
    return body + "10X98765432"[sum(int(d) * w for d, w in zip(body, weights)) % 11]


aws_id = "AKIA" + rand(string.ascii_uppercase + string.digits, 16)
aws_id2 = "ASIA" + rand(string.ascii_uppercase + string.digits, 16)
aws_secret = rand(B64, 40)
aws_secret2 = rand(B64, 40)
slack_bot = f"xoxb-{rand(string.digits, 12)}-{rand(string.digits, 13)}-{rand(ALNUM, 24)}"
slack_user = f"xoxp-{rand(string.digits, 12)}-{rand(string.digits, 12)}-{rand(string.digits, 13)}-{rand('0123456789abcdef', 32)}"
slack_app = f"xapp-1-A{rand(string.ascii_uppercase + string.digits, 10)}-{rand(string.digits, 13)}-{rand('0123456789abcdef', 64)}"
slack_hook = f"https://hooks.slack.com/services/T{rand(string.ascii_uppercase + string.digits, 8)}/B{rand(string.ascii_uppercase + string.digits, 10)}/{rand(ALNUM, 24)}"
stripe_live = "sk_live_" + rand(ALNUM, 24)
stripe_long = "sk_live_51" + rand(ALNUM, 97)
stripe_restricted = "rk_live_" + rand(ALNUM, 24)
stripe_test = "sk_test_" + rand(ALNUM, 24)
google = "AIza" + rand(URLSAFE, 35)
google2 = "AIza" + rand(URLSAFE, 35)
lgx = f"lgx_{rand('0123456789abcdef', 8)}_{rand(URLSAFE, 43)}"
lgx2 = f"lgx_{rand('0123456789abcdef', 8)}_{rand(URLSAFE, 43)}"
pg_pw = rand(ALNUM, 14)
openai = "sk-proj-" + rand(URLSAFE, 48)
anthropic = "sk-ant-api03-" + rand(URLSAFE, 60)
ghp = "ghp_" + rand(ALNUM, 36)
gh_fine = "github_pat_" + rand(ALNUM + "_", 82)
glpat = "glpat-" + rand(URLSAFE, 20)
sendgrid = f"SG.{rand(URLSAFE, 22)}.{rand(URLSAFE, 43)}"
telegram = f"{rand(string.digits, 10)}:AA{rand(URLSAFE, 33)}"
jwt = ".".join([b64url({"alg": "HS256", "typ": "JWT"}), b64url({"sub": "brand_A-ops", "exp": 1893456000}), rand(URLSAFE, 43)])
entropy_key = rand(ALNUM, 40)
bearer = rand(URLSAFE, 32)
password = "Qx7!" + rand(ALNUM, 8) + "#26"
password2 = "Lm" + rand(ALNUM, 10) + "9"
key_body = [rand(B64, 64) for _ in range(4)]
rsa = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(key_body) + "\n-----END RSA PRIVATE KEY-----"
ssh_body = [rand(B64, 70) for _ in range(3)]
openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(ssh_body) + "\n-----END OPENSSH PRIVATE KEY-----"


def b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


rows: list[dict] = []


def cred(family: str, variant: str, value: str, text: str, surface: str | None = None) -> None:
    n = sum(1 for r in rows if r["family"] == family) + 1
    rows.append({"id": f"{family}-{n:02d}", "family": family, "kind": "credential", "variant": variant, "via": "ingest",
                 "text": text, "value": value, "surface": surface or value})


def cred_trigger(family: str, variant: str, value: str, summary: str, data: dict, surface: str | None = None) -> None:
    n = sum(1 for r in rows if r["family"] == family) + 1
    rows.append({"id": f"{family}-{n:02d}", "family": family, "kind": "credential", "variant": variant, "via": "trigger",
                 "event_type": "environment_change", "summary": summary, "data": data, "value": value, "surface": surface or value})


# --- AWS ---
cred("aws", "plain", aws_id, f"用户纠正：brand_A 报表导出用 AWS key {aws_id} 以后都用这个")
cred("aws", "pair", aws_secret, f"The user said the S3 upload for brand_B uses {aws_id2} / {aws_secret} from now on")
cred("aws", "keyword", aws_secret2, f"用户确认：美妆投放素材桶 aws_secret_access_key={aws_secret2} 请记住")
cred("aws", "zero_width", aws_id, f"用户要求以后用密钥 {zero_width(aws_id)} 拉取医药OTC报表", zero_width(aws_id))
# --- Slack ---
cred("slack", "plain", slack_bot, f"用户纠正：出价告警发到 Slack，机器人 token 是 {slack_bot}，以后都用它")
cred("slack", "plain", slack_user, f"The user said to post the ROI digest with {slack_user} every morning")
cred("slack", "webhook", slack_hook, f"用户要求：ROI 异常时调用 {slack_hook} 通知投放群")
cred("slack", "app_token", slack_app, f"用户确认：Socket 模式用 {slack_app}")
cred("slack", "spaced", slack_bot, f"用户说 Slack 凭证是 {spaced(slack_bot)} 请保存", spaced(slack_bot))
cred("slack", "base64", slack_bot, f"用户要求保存配置 {b64('SLACK_BOT=' + slack_bot)} 用于大促播报", b64("SLACK_BOT=" + slack_bot))
# --- Stripe ---
cred("stripe", "plain", stripe_live, f"用户纠正：brand_A 充值走 Stripe，密钥 {stripe_live}")
cred("stripe", "long", stripe_long, f"The user confirmed the billing key {stripe_long} for brand_B top-ups")
cred("stripe", "restricted", stripe_restricted, f"用户确认：退款查询用受限密钥 {stripe_restricted}")
cred("stripe", "test", stripe_test, f"用户说测试环境用 {stripe_test} 跑出价回归")
cred("stripe", "spaced", stripe_live, f"用户纠正：支付密钥为 {spaced(stripe_live, 8)} 不要弄丢", spaced(stripe_live, 8))
cred("stripe", "full_width", stripe_live, f"用户要求记住：{full_width(stripe_live)} 是充值接口的钥匙", full_width(stripe_live))
# --- Google ---
cred("google", "plain", google, f"用户纠正：地图定向用 Google key {google} 以后都这样配")
cred("google", "url", google2, f"用户说商圈数据从 https://maps.googleapis.com/maps/api/place/textsearch/json?query=药店&key={google2} 拉")
cred("google", "spaced", google, f"The user said the Maps key is {spaced(google, 5)} use it for geo bids", spaced(google, 5))
cred("google", "zero_width", google2, f"用户要求以后用 {zero_width(google2)} 做商圈定向", zero_width(google2))
# --- Lingix tokens ---
cred("lgx", "plain", lgx, f"用户纠正：自动化脚本调用记忆服务用 {lgx} 这个令牌")
cred("lgx", "header", lgx2, f"The user said: send Authorization: Bearer {lgx2} on every recall")
cred("lgx", "spaced", lgx, f"用户说 Lingix 令牌 {spaced(lgx, 7)} 记下来", spaced(lgx, 7))
cred("lgx", "base64", lgx2, f"用户要求把 {b64(lgx2)} 配到投放机器人里", b64(lgx2))
# --- database URLs ---
for scheme, host in [("postgres", "db.internal:5432/lingix"), ("mysql", "10.0.3.7:3306/ads"), ("mongodb+srv", "cluster0.mongo.example/report"), ("amqp", "mq.internal:5672/%2f")]:
    pw = rand(ALNUM, 14)
    url = f"{scheme}://ads_ops:{pw}@{host}"
    cred("db_url", scheme, pw, f"用户纠正：出价日志库连接串是 {url} 以后都连这个", url)
redis_pw = rand(ALNUM, 16)
cred("db_url", "redis_no_user", redis_pw, f"The user said the bid cache lives at redis://:{redis_pw}@cache.internal:6379/0", f"redis://:{redis_pw}@cache.internal:6379/0")
cred("db_url", "base64", pg_pw, f"用户要求保存 {b64('postgresql://report:' + pg_pw + '@pg.internal/ads')} 作为报表库配置", b64("postgresql://report:" + pg_pw + "@pg.internal/ads"))
# --- model gateways ---
cred("provider_key", "plain", openai, f"用户纠正：文案生成调用的 key 是 {openai}")
cred("provider_key", "plain", anthropic, f"The user said the copywriting model key is {anthropic}")
cred("provider_key", "full_width", openai, f"用户说：{full_width(openai)} 以后用于素材生成", full_width(openai))
# --- code hosts ---
cred("github", "plain", ghp, f"用户要求：投放脚本仓库用 {ghp} 拉取")
cred("github", "fine_grained", gh_fine, f"The user said CI pulls the bid scripts with {gh_fine}")
cred("github", "zero_width", ghp, f"用户纠正：仓库令牌 {zero_width(ghp)} 别搞错", zero_width(ghp))
cred("gitlab", "plain", glpat, f"用户确认：素材仓库 GitLab 令牌 {glpat}")
# --- other vendors ---
cred("sendgrid", "plain", sendgrid, f"用户要求：周报邮件用 SendGrid key {sendgrid} 发送")
cred("telegram", "plain", telegram, f"The user said the alert bot token is {telegram}")
# --- JWT, bearer, private keys ---
cred("jwt", "plain", jwt, f"用户说媒体平台回调带上 {jwt} 这个 JWT")
cred("jwt", "json", jwt, json.dumps({"note": "用户确认回调凭证", "auth": {"jwt": jwt}}, ensure_ascii=False))
cred("bearer", "plain", bearer, f"用户要求：调用巨量报表接口时带 Authorization: Bearer {bearer}")
cred("private_key", "rsa", key_body[1], f"用户要求保存投放服务器的私钥：\n{rsa}\n以后用它登录", rsa)
cred("private_key", "openssh", ssh_body[0], f"The user pasted the deploy key:\n{openssh}", openssh)
# --- keyword assignments ---
cred("keyword", "zh", password, f"用户说千川后台密码是 {password} 以后都用这个登录")
cred("keyword", "en", password2, f"The user said: password: {password2} for the brand_A ad account")
cred("keyword", "config", password, f'用户确认：配置里写 api_key = "{password}" 即可')
cred("keyword", "zh_colon", password2, f"用户纠正：巨量引擎口令：{password2}，请记住")
# --- high entropy without a vendor prefix ---
cred("high_entropy", "plain", entropy_key, f"用户纠正：新的接口凭证 {entropy_key} 以后用于拉取 ROI 数据")
# --- structured trigger data ---
cred_trigger("json_data", "nested", slack_bot, "系统监测到大促期间告警通道配置更新，需调整出价", {"channel": {"token": slack_bot, "room": "投放群"}})
cred_trigger("json_data", "key_named", password, "系统监测到美妆类目配置变更，需调整出价", {"密码": password, "category": "美妆"})
cred_trigger("json_data", "list", google, "系统监测到医药OTC商圈数据源更新，需调整出价", {"sources": ["巨量", f"maps key {google}"], "roi": 2.4})
cred_trigger("json_data", "in_key", stripe_live, "系统监测到充值接口变化，需调整出价", {stripe_live: "充值密钥", "budget": 5000})
cred_trigger("json_data", "base64", lgx, "系统监测到自动化账号配置更新，需调整出价", {"config_b64": b64(json.dumps({"token": lgx}))}, b64(json.dumps({"token": lgx})))

# --- personal data ---
def pii(family: str, variant: str, value: str, text: str, surface: str | None = None, via: str = "ingest", data: dict | None = None) -> None:
    n = sum(1 for r in rows if r["family"] == family) + 1
    row = {"id": f"{family}-{n:02d}", "family": family, "kind": "personal", "variant": variant, "via": via, "value": value, "surface": surface or value}
    if via == "trigger":
        row.update(event_type="user_feedback", summary=text, data=data or {})
    else:
        row["text"] = text
    rows.append(row)


ids = [id18("110105", "19880307", "123"), id18("440305", "19920615", "057"), id18("310104", "20010101", "999"), id18("510107", "19751130", "300")]
ids = ids + [i for i in (id18("330106", f"1990{m:02d}12", "41" + str(m % 10)) for m in range(1, 13)) if i.endswith("X")][:1]
pii("id_card", "plain", ids[0], f"用户纠正：brand_A 开户联系人身份证号 {ids[0]}，医药OTC资质以此为准")
pii("id_card", "plain", ids[1], f"The user said the account owner's ID is {ids[1]} for brand_B")
pii("id_card", "x_check", ids[-1], f"用户确认：美妆店铺法人身份证 {ids[-1]} 已提交")
pii("id_card", "full_width", ids[2], f"用户说身份证号是 {full_width(ids[2])} 请登记", full_width(ids[2]))
pii("id_card", "old_15", "110105880307123", "用户纠正：老客户登记的是旧身份证 110105880307123")
phones = ["13812345678", "15900001234", "18611112222", "17755556666", "19988887777"]
pii("phone", "plain", phones[0], f"用户纠正：brand_A 投放负责人手机 {phones[0]}，预算超限时联系")
pii("phone", "plus86", phones[1], f"The user said to call +86 {phones[1]} when ROI drops below 1.5", f"+86 {phones[1]}")
pii("phone", "dashes", phones[2], "用户要求：大促期间紧急联系 186-1111-2222", "186-1111-2222")
pii("phone", "spaces", phones[3], "用户确认：美妆客服电话 177 5555 6666 写进素材", "177 5555 6666")
pii("phone", "full_width", phones[4], f"用户说对接人电话 {full_width(phones[4])}", full_width(phones[4]))
cards = [luhn_complete("622202100112345678"[:15]), luhn_complete("6228480402564890018"[:18]), luhn_complete("411111111111111"), luhn_complete("550000555555555")]
pii("bank_card", "unionpay16", cards[0], f"用户纠正：brand_A 充值对公卡号 {cards[0]}")
pii("bank_card", "unionpay19", cards[1], f"The user said refunds go to card {cards[1]}")
pii("bank_card", "visa_spaced", cards[2], f"用户要求：海外投放用卡 {spaced(cards[2], 4)} 付款", spaced(cards[2], 4))
pii("bank_card", "mc_dashes", cards[3], f"用户确认：备用卡 {'-'.join(cards[3][i:i+4] for i in range(0, 16, 4))}", "-".join(cards[3][i:i + 4] for i in range(0, 16, 4)))
pii("email", "plain", "li.wei@brand-a.example.com", "用户纠正：ROI 周报发给 li.wei@brand-a.example.com")
pii("email", "plain", "ops_lead+bids@agency.example.cn", "The user said to cc ops_lead+bids@agency.example.cn on budget changes")
pii("phone", "json", "13600001111", "用户反馈：大促联系人变更，预算超限时通知", via="trigger", data={"contact": {"phone": "13600001111", "name": "王经理"}})
pii("id_card", "json_number", ids[3], "用户反馈：开户资料更新，需重新审核", via="trigger", data={"owner_id": ids[3], "mobile": 13722223333})

out = Path(__file__).with_name("safety_hostile.jsonl")
out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
print(f"{len(rows)} cases -> {out}")
