"""Credential shapes detect-secrets does not know, written as its own plugin type so they
run beside the library's detectors in one loop. Only shapes the library lacks belong
here; a shape it learns later should be dropped from this file."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from detect_secrets.plugins.base import RegexBasedDetector

# detect-secrets' own AWS key-id pattern, reused so the pairing rule below agrees with it.
_AWS_KEY_ID = r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}"
_AWS_SECRET = r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"


class GoogleApiKeyDetector(RegexBasedDetector):
    secret_type = "Google API Key"
    denylist = (re.compile(r"AIza[0-9A-Za-z_\-]{35}"),)


class LingixTokenDetector(RegexBasedDetector):
    """This service's own API tokens: lgx_<8 hex prefix>_<url-safe secret> (api.services)."""

    secret_type = "Lingix API Token"
    denylist = (re.compile(r"lgx_[0-9a-f]{8}_[A-Za-z0-9_\-]{16,}"),)


class UrlCredentialsDetector(RegexBasedDetector):
    """user:password@ in a URL of any scheme (postgres, mysql, redis, amqp, mongodb+srv…),
    the user may be empty (redis://:pw@host). The library's basic-auth rule needs a user."""

    secret_type = "URL Credentials"
    denylist = (re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,20}://([^\s/?#@:]*:[^\s/?#]+)@[^\s/?#@]"),)


class AwsSecretNearKeyIdDetector(RegexBasedDetector):
    """A 40-character AWS secret access key written next to its key id without any
    keyword: the pair is the credential even when the id alone was caught."""

    secret_type = "AWS Secret Access Key"
    denylist = (
        re.compile(_AWS_KEY_ID + r"[\s\S]{0,120}?" + _AWS_SECRET),
        re.compile(_AWS_SECRET + r"[\s\S]{0,120}?" + _AWS_KEY_ID),
    )


class ProviderApiKeyDetector(RegexBasedDetector):
    """sk-… keys of model gateways in their current forms (sk-proj-, sk-ant-…), Stripe
    test-mode keys and short live ones; the library only knows the legacy OpenAI form and
    live Stripe keys of 24 characters or more."""

    secret_type = "Provider API Key"
    denylist = (
        re.compile(r"(?<![A-Za-z0-9])sk-(?:[a-z]{2,8}-)*[A-Za-z0-9_\-]{20,}"),
        re.compile(r"(?<![A-Za-z0-9])[rs]k_test_[0-9A-Za-z]{24,}"),
        # Shorter than the library's 24-character live pattern (a longer one is its to name).
        re.compile(r"(?<![A-Za-z0-9])[rs]k_live_[0-9A-Za-z]{16,23}(?![0-9A-Za-z])"),
    )


class SlackExtraTokenDetector(RegexBasedDetector):
    """Slack app-level and rotating tokens, which the library's xox?-digits rule misses."""

    secret_type = "Slack Token"
    denylist = (
        re.compile(r"xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]+"),
        re.compile(r"xox[a-z](?:\.[a-z]+)?-[A-Za-z0-9\-]{20,}"),
    )


class GitHubFineGrainedTokenDetector(RegexBasedDetector):
    """Fine-grained personal access tokens; the library knows only the gh?_ forms."""

    secret_type = "GitHub Token"
    denylist = (re.compile(r"github_pat_[A-Za-z0-9_]{40,}"),)


class BearerTokenDetector(RegexBasedDetector):
    secret_type = "Bearer Token"
    denylist = (re.compile(r"(?i)\bbearer\s+([A-Za-z0-9_\-.=+/~]{12,})"),)


_VALUE = r"[\"'”’」]?\s*{assign}\s*[\"'“‘「]?([A-Za-z0-9!#$%&()*+\-./:;<=>?@\[\]^_{{|}}~]{{6,}})"


class ChineseKeywordDetector(RegexBasedDetector):
    """'密码是 …', '口令：…', 'token is …': an assignment in words, which the library's
    keyword rule (code-style `password = …` only) does not read. The value is the ASCII
    run after the keyword, so the Chinese sentence around it is not taken for the secret.
    A bare `token:name` with no space is this service's own actor notation, not a secret."""

    secret_type = "Secret Keyword"
    denylist = (
        re.compile(
            r"(?i)(?:密码|口令|密钥|秘钥|私钥|令牌|授权码|access[_\- ]?token|auth[_\- ]?token|refresh[_\- ]?token"
            r"|api[_\- ]?key|password|passwd|passcode)" + _VALUE.format(assign=r"(?:is|是|为|[:：=])")
        ),
        re.compile(r"(?i)\b(?:token|secret)" + _VALUE.format(assign=r"(?:is\b|是|为|=|：|:(?=\s))")),
    )


_NEAR = r"[\s\S]{0,120}?"
_ALNUM_EDGE_L, _ALNUM_EDGE_R = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
_ASSIGN = r"\s*(?:[:=：]|is\b|是|为)?\s*[\"'“‘「]?"


class AlibabaCloudKeyDetector(RegexBasedDetector):
    """Alibaba Cloud AccessKey ids (LTAI…) and the 30-character AccessKey secret written
    near one."""

    secret_type = "Alibaba Cloud AccessKey"
    denylist = (
        re.compile(_ALNUM_EDGE_L + r"LTAI[A-Za-z0-9]{12,24}" + _ALNUM_EDGE_R),
        re.compile(r"LTAI[A-Za-z0-9]{12,24}" + _NEAR + _ALNUM_EDGE_L + r"([A-Za-z0-9]{30})" + _ALNUM_EDGE_R),
    )


class TencentCloudKeyDetector(RegexBasedDetector):
    """Tencent Cloud SecretIds (AKID…) and the 32-character SecretKey written near one."""

    secret_type = "Tencent Cloud SecretId"
    denylist = (
        re.compile(_ALNUM_EDGE_L + r"AKID[A-Za-z0-9]{13,40}" + _ALNUM_EDGE_R),
        re.compile(r"AKID[A-Za-z0-9]{13,40}" + _NEAR + _ALNUM_EDGE_L + r"([A-Za-z0-9]{32})" + _ALNUM_EDGE_R),
    )


class CloudKeyPairDetector(RegexBasedDetector):
    """An AK/SK pair as Baidu Cloud (and most Chinese clouds) name them: 'AK: …', 'SK=…',
    'API Key …', 'Secret Key …'. The value is a run of 16 or more letters and digits."""

    secret_type = "Cloud AK/SK"
    denylist = (
        re.compile(_ALNUM_EDGE_L + r"(?:AK|SK|ak|sk)" + _ALNUM_EDGE_R + _ASSIGN + r"([A-Za-z0-9/+]{16,64})" + _ALNUM_EDGE_R),
        re.compile(
            r"(?i)(?<![A-Za-z0-9])(?:api[ _\-]?key|secret[ _\-]?key|access[ _\-]?key(?:[ _\-]?id)?|secret[ _\-]?id)"
            + _ASSIGN
            + r"([A-Za-z0-9/+]{16,64})"
            + _ALNUM_EDGE_R
        ),
    )


_ARG = r"(?:'([^'\s]{3,})'|\"([^\"\s]{3,})\"|([^\s'\"]{3,}))"


class DatabaseCliPasswordDetector(RegexBasedDetector):
    """A password handed to a database client on its command line (`mysql -pS3cret`,
    `psql --password=…`, `redis-cli -a …`) or in its environment variable (PGPASSWORD=…)."""

    secret_type = "Database Password"
    denylist = (
        re.compile(
            r"(?i:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mycli|clickhouse-client|mongo|mongosh|mongodump|mongorestore))"
            r"\b[^\n]{0,160}?(?<=\s)-p" + _ARG
        ),
        re.compile(r"(?i:\b(?:mongo|mongosh|mongodump|mongorestore))\b[^\n]{0,160}?\s-p\s+(?!-)" + _ARG),
        re.compile(r"(?i:\b(?:redis-cli|keydb-cli))\b[^\n]{0,160}?\s(?:-a|--pass)\s+" + _ARG),
        re.compile(r"(?<![A-Za-z0-9_\-])--(?:password|passwd|pass|pwd)(?:=|\s+)" + _ARG),
        re.compile(r"(?<![A-Za-z0-9_])(?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH|MONGO_PASSWORD|MYSQL_ROOT_PASSWORD)=" + _ARG),
    )


class PinUnderSecretWordDetector(RegexBasedDetector):
    """A numeric PIN or password said in words: '支付密码是 830215', 'PIN: 4471'. The keyword
    rule leaves plain numbers alone (most numbers near 密码 are lengths and counts), so
    only 4 to 12 digits given as the value of the word are taken."""

    secret_type = "PIN Code"
    denylist = (
        re.compile(
            r"(?i)(?:密码|口令|支付码|安全码|(?<![A-Za-z])pin(?:\s*code|码)?(?![A-Za-z]))\s*(?:[:=：]|是|为)\s*[\"'“‘「]?(\d{4,12})(?!\d)"
        ),
    )


EXTRA_DETECTORS: tuple[RegexBasedDetector, ...] = (
    GoogleApiKeyDetector(),
    LingixTokenDetector(),
    UrlCredentialsDetector(),
    AwsSecretNearKeyIdDetector(),
    ProviderApiKeyDetector(),
    SlackExtraTokenDetector(),
    GitHubFineGrainedTokenDetector(),
    BearerTokenDetector(),
    ChineseKeywordDetector(),
    AlibabaCloudKeyDetector(),
    TencentCloudKeyDetector(),
    CloudKeyPairDetector(),
    DatabaseCliPasswordDetector(),
    PinUnderSecretWordDetector(),
)


class ConfiguredDetector(RegexBasedDetector):
    """The operator's own shapes (MEMORY_SAFETY_EXTRA_PATTERNS), run beside ours."""

    secret_type = "Configured Secret"
    denylist: tuple[re.Pattern[str], ...] = ()

    def __init__(self, patterns: tuple[re.Pattern[str], ...]) -> None:
        self.denylist = patterns


def configured_detectors() -> tuple[RegexBasedDetector, ...]:
    """Read at every scan, so a test or a reloaded configuration takes effect at once;
    compiling is cached per setting value."""
    from lingix_config import config

    return _compiled(config().memory_safety_extra_patterns)


@lru_cache(maxsize=8)
def _compiled(raw: str) -> tuple[RegexBasedDetector, ...]:
    from lingix_config import ConfigurationError

    raw = (raw or "").strip()
    if not raw:
        return ()
    if raw.startswith("["):
        try:
            sources = json.loads(raw)
        except ValueError as exc:
            raise ConfigurationError(f"MEMORY_SAFETY_EXTRA_PATTERNS is not a JSON list: {exc}") from None
        if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
            raise ConfigurationError("MEMORY_SAFETY_EXTRA_PATTERNS must be a JSON list of strings")
    else:
        sources = [line.strip() for line in raw.splitlines() if line.strip()]
    patterns = []
    for source in sources:
        try:
            pattern = re.compile(source)
        except re.error as exc:
            raise ConfigurationError(f"MEMORY_SAFETY_EXTRA_PATTERNS: {source!r} is not a regular expression ({exc})") from None
        patterns.append(pattern)
    return (ConfiguredDetector(tuple(patterns)),)
