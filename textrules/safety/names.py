"""Is a name (a JSON key, a config identifier written in a sentence) the name of a secret?

A name is split into words first, whatever its spelling: camelCase (dbPassword,
reportApiSecret), snake_case and kebab-case (db_pass, api-key), dotted (mysql.password)
and run together (appsecret, accesstoken). Chinese names (密码, 支付密码, 私钥) are matched
by their words. It is the last word, or the last two, that names what the value is:
`password_hint` and `token_count` are not secrets, `hint_password` is."""

from __future__ import annotations

import re
from functools import lru_cache

# Chinese words that name a secret wherever they sit in the name.
CHINESE_SECRET_WORDS = ("密码", "口令", "密钥", "秘钥", "私钥", "令牌", "凭证", "凭据", "授权码", "支付码", "安全码", "暗码")
# A name whose last word is one of these holds a secret.
_LAST_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "pass",
        "passphrase",
        "passcode",
        "secret",
        "secrets",
        "token",
        "credential",
        "credentials",
        "cookie",
        "bearer",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "appsecret",
        "ak",
        "sk",
        "pin",
        "contrasena",
    }
)
# A name whose last two words are one of these holds a secret (api key, app key, pin code).
_LAST_PAIRS = frozenset(
    {
        ("api", "key"),
        ("app", "key"),
        ("auth", "key"),
        ("access", "key"),
        ("secret", "key"),
        ("private", "key"),
        ("priv", "key"),
        ("client", "key"),
        ("service", "key"),
        ("account", "key"),
        ("master", "key"),
        ("signing", "key"),
        ("sign", "key"),
        ("encryption", "key"),
        ("db", "key"),
        ("database", "key"),
        ("secret", "id"),
        ("pin", "code"),
        ("auth", "code"),
        ("key", "pass"),
        ("db", "pass"),
        ("database", "pass"),
    }
)
# A word run together from several (appsecret, dbpassword) ends like this.
_RUN_TOGETHER_ENDINGS = ("password", "passwd", "secret", "token", "apikey", "accesskey", "secretkey", "privatekey", "appkey")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")


def words(name: str) -> list[str]:
    """'reportApiSecret' -> ['report', 'api', 'secret']; 'DB_PASSWORD' -> ['db', 'password']."""
    spaced = _CAMEL.sub(" ", name)
    return [w.lower() for w in _SPLIT.split(spaced) if w]


@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    if not name:
        return False
    if any(word in name for word in CHINESE_SECRET_WORDS):
        return True
    parts = words(name)
    if not parts:
        return False
    last = parts[-1]
    if last in _LAST_WORDS or tuple(parts[-2:]) in _LAST_PAIRS:
        return True
    if parts[-3:] == ["access", "key", "id"]:
        return True
    # Run together: 'appsecret', 'dbpassword'; a long word only, so 'token' alone was decided above.
    return len(last) > 6 and last.endswith(_RUN_TOGETHER_ENDINGS) and not last.endswith("tokens")
