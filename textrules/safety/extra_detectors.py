"""Credential shapes detect-secrets does not know, written as its own plugin type so they
run beside the library's detectors in one loop. Only shapes the library lacks belong
here; a shape it learns later should be dropped from this file."""

from __future__ import annotations

import re

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
    """sk-… keys of model gateways in their current forms (sk-proj-, sk-ant-…), and Stripe
    test-mode keys; the library only knows the legacy OpenAI form and live Stripe keys."""

    secret_type = "Provider API Key"
    denylist = (
        re.compile(r"(?<![A-Za-z0-9])sk-(?:[a-z]{2,8}-)*[A-Za-z0-9_\-]{20,}"),
        re.compile(r"(?<![A-Za-z0-9])[rs]k_test_[0-9A-Za-z]{24,}"),
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
)
