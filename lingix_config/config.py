"""Every environment variable the service reads, typed, in one object read once.

`config()` builds the object from the environment on first use and keeps it; Django's
settings (lingix_site/settings.py) are built from it, and code outside Django's settings
(secrets, tuning numbers, the metrics gate, the first-run account) reads it directly.
Nothing else in the tree reads `os.environ`, except lingix_site/envfile.py, which fills the
environment from `.lingix.env` before this object is first built.

A variable set to an empty string counts as unset (its default applies), except
LINGIX_METRICS_ALLOW, where an empty list means "no address" (token only). A value that
is not of the field's type stops the process with the variable's name in the message.

Tests that change the environment call `reload_config()` afterwards (the `env` fixture
in tests/conftest.py does both and restores the old object)."""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_ADMIN_USER = "admin"
DEFAULT_ADMIN_PASSWORD = "lingix-admin"
# Empty means something for these fields; for every other one it means "use the default".
_EMPTY_IS_A_VALUE = frozenset({"lingix_metrics_allow"})


class ConfigurationError(ValueError):
    """An environment variable holds a value of the wrong type; the message names it."""


class LingixConfig(BaseSettings):
    """Field names are the environment variables' names in lower case (MEMORY_LLM_TIMEOUT is
    `memory_llm_timeout`), so a name found in the README or CONTRACT.md is found here."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore", frozen=True, validate_default=True)

    # --- Django and the process -------------------------------------------------------
    django_secret_key: SecretStr = Field(
        default=SecretStr("lingix-dev-only-insecure-key-change-me"),
        description="Django's signing key; set a long random one on any shared machine.",
    )
    django_debug: bool = Field(default=False, description="Django's DEBUG (tracebacks in pages); never on a shared machine.")
    django_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default=["127.0.0.1", "[::1]", "localhost", "testserver"],
        description="Host names the web server answers, comma-separated.",
    )
    database_url: str = Field(
        default="",
        description="Database address; empty means SQLite at data/lingix.db, `postgres://…` selects PostgreSQL.",
    )
    tz_name: str = Field(default="Asia/Shanghai", description="Time zone for dates shown to people (Django's TIME_ZONE).")
    log_level: str = Field(default="WARNING", description="Level of the root and `django` loggers.")
    q_workers: int = Field(default=1, ge=1, description="django-q2 worker processes of the scheduler (`qcluster`).")
    q_sync: bool = Field(default=False, description="Run django-q2 tasks in the calling process (tests).")

    # --- the model gateway ------------------------------------------------------------
    memory_llm_provider: str = Field(
        default="",
        description="`openai` or `offline`; empty means `openai` when MEMORY_LLM_API_KEY is set, otherwise refuse to "
        "start the writing commands (judges/config.py resolves and checks it).",
    )
    memory_llm_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="Key for the OpenAI-compatible gateway; only ever read from the environment, never copied to "
        "Django's settings, the database, logs or traces.",
    )
    memory_llm_base_url: str = Field(default="https://api.openai.com/v1", description="Address of the OpenAI-compatible gateway.")
    memory_judge_model: str = Field(default="gpt-4o-mini", description="Chat model the gateway judge and deep search ask.")
    memory_doubtmem_base_url: str = Field(
        default="",
        description="Address of a local DoubtMem judge (OpenAI-compatible server); empty means the guard's judge step "
        "asks the gateway judge.",
    )
    memory_doubtmem_model: str = Field(default="DoubtMem-AxisGRPO-Qwen3-4B-step150", description="Model name the DoubtMem server serves.")
    memory_llm_timeout: float = Field(default=20.0, gt=0, description="Seconds one gateway call may take before it counts as failed.")
    memory_llm_max_retries: int = Field(
        default=2,
        ge=0,
        description="Retries after a failed gateway or embedding call (429, 5xx, connection error); a timeout is not retried.",
    )
    memory_llm_backoff_seconds: float = Field(
        default=0.5,
        ge=0,
        description="Wait before the first retry; each further retry waits up to twice as long (with jitter).",
    )
    memory_llm_backoff_max_seconds: float = Field(
        default=10.0,
        ge=0,
        description="Longest single wait between retries, a server's Retry-After included.",
    )
    memory_llm_price_in_per_1k: float = Field(default=0.0, ge=0, description="Price per 1k input tokens, for the traces' cost column.")
    memory_llm_price_out_per_1k: float = Field(default=0.0, ge=0, description="Price per 1k output tokens, for the traces' cost column.")
    memory_entities_llm: bool = Field(
        default=False,
        description="Also ask the gateway model for entities after each write (one more call per write; openai provider only).",
    )
    memory_deep_timeout: float = Field(
        default=8.0,
        gt=0,
        description="Seconds deep search's rewrite and rerank calls may take (one attempt each, then the fast result).",
    )
    memory_rerank_endpoint: str = Field(
        default="",
        description="Full URL of a cross-encoder's `/rerank` endpoint (Jina, SiliconFlow, Cohere, Voyage, vLLM, Infinity: "
        "e.g. https://api.jina.ai/v1/rerank); deep search then reranks with it. Empty means no cross-encoder.",
    )
    memory_rerank_model: str = Field(default="jina-reranker-v2-base-multilingual", description="Model name sent to MEMORY_RERANK_ENDPOINT.")
    memory_rerank_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="Bearer key for MEMORY_RERANK_ENDPOINT (optional: a local server may need none); only ever read from "
        "the environment, never copied to Django's settings, the database, logs or traces.",
    )

    # --- embeddings ---------------------------------------------------------------
    memory_embedding_provider: str = Field(
        default="local",
        description="`local` (bundled multilingual embedder, no network) or `openai` (an OpenAI-compatible /embeddings).",
    )
    memory_embedding_model: str = Field(default="text-embedding-3-small", description="Embedding model of the `openai` embedding provider.")
    memory_embedding_base_url: str = Field(
        default="",
        description="Address of the embedding server; empty means MEMORY_LLM_BASE_URL.",
    )
    memory_embedding_dimensions: int | None = Field(
        default=None,
        description="Vector size the embedding server must return; empty or 0 means whatever it returns first.",
    )
    memory_embedding_batch_size: int = Field(default=64, ge=1, description="Texts per /embeddings request.")
    memory_embed_threads: int = Field(default=1, ge=1, description="Threads of the bundled embedder.")
    memory_embed_on_write: bool = Field(default=True, description="Embed a memory when it is written (off: a later backfill does it).")
    memory_embed_query_tokens: int = Field(default=96, ge=1, description="How much of a search query the embedder reads, in tokens.")
    memory_query_cache_size: int = Field(
        default=1024, ge=0, description="Query vectors kept per process for repeated queries; 0 turns the cache off."
    )

    # --- the API and the funnel ---------------------------------------------------------
    memory_api_rate: str = Field(default="120/min", description='Requests per API token (django-ninja throttle syntax, e.g. "120/min").')
    memory_api_concurrency: int = Field(default=2, ge=1, description="Expensive requests one token may have in flight, per process.")
    memory_max_body_bytes: int = Field(
        default=256 * 1024, ge=1, description="Largest request body; larger ones are refused before parsing."
    )
    memory_access_async: bool = Field(default=True, description="Flush access counts from a background thread (long-lived processes).")
    memory_max_text_chars: int = Field(default=8000, ge=1, description="Longest event or memory text the funnel accepts.")
    memory_related_cosine: float = Field(
        default=0.92,
        ge=0,
        le=1,
        description="Cosine at or above which two memories talk about the same thing (the contradiction check).",
    )
    memory_classify_min_confidence: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Below this classification confidence an event goes to review instead of being written.",
    )
    memory_safety_extra_patterns: str = Field(
        default="",
        description="More credential shapes for the secret scan (textrules/safety): a JSON list of regular expressions, "
        "or one per line; a pattern's first group, when it has one, is the part cut out.",
    )

    # --- the site: metrics, first run, command line --------------------------------------
    lingix_metrics_allow: str | None = Field(
        default=None,
        description="Addresses or networks (comma-separated) that may read /metrics; unset means loopback only, "
        "empty means nobody without the token.",
    )
    lingix_metrics_token: SecretStr = Field(
        default=SecretStr(""), description="Bearer token that opens /metrics from anywhere; empty means none."
    )
    lingix_admin_user: str = Field(default=DEFAULT_ADMIN_USER, description="The admin account `make run` creates on first start.")
    lingix_admin_password: SecretStr = Field(
        default=SecretStr(DEFAULT_ADMIN_PASSWORD),
        description="That account's first password (change it).",
    )
    lingix_cli_user: str = Field(
        default="",
        description="Account the CLI decides reviews as when --as is not given; empty means LINGIX_ADMIN_USER.",
    )
    lingix_host: str = Field(default="127.0.0.1", description="Address `make run` serves on (shown in the first-run message).")
    lingix_port: int = Field(default=8000, ge=1, le=65535, description="Port `make run` serves on.")
    lingix_env_file: str | None = Field(
        default=None,
        description="Another settings file instead of .lingix.env; empty turns the file off (read by lingix_site/envfile.py "
        "before this object is built).",
    )

    @field_validator("*", mode="before")
    @classmethod
    def _empty_means_default(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str) and not value.strip() and info.field_name not in _EMPTY_IS_A_VALUE:
            field = cls.model_fields[info.field_name or ""]
            return field.get_default(call_default_factory=True)
        return value

    @field_validator("memory_llm_provider", "memory_embedding_provider", mode="after")
    @classmethod
    def _lower_case(cls, value: str) -> str:
        return value.strip().lower()

    @field_validator("log_level", mode="after")
    @classmethod
    def _upper_case(cls, value: str) -> str:
        return value.strip().upper()

    @field_validator("django_allowed_hosts", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("memory_rerank_endpoint", mode="after")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # The key goes to this address: a typo such as a file path must stop the process, not send it.
        value = value.strip()
        if value and not value.lower().startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @field_validator("memory_embedding_dimensions", mode="after")
    @classmethod
    def _zero_is_unset(cls, value: int | None) -> int | None:
        return value or None

    @model_validator(mode="after")
    def _embedding_url_falls_back(self) -> LingixConfig:
        if not self.memory_embedding_base_url:
            # frozen: the one place a derived default is filled in
            object.__setattr__(self, "memory_embedding_base_url", self.memory_llm_base_url)
        return self

    @property
    def llm_api_key(self) -> str:
        """The gateway key in plain text, for the client that sends it and nothing else."""
        return self.memory_llm_api_key.get_secret_value()

    @property
    def rerank_api_key(self) -> str:
        """The rerank endpoint's key in plain text, for the client that sends it and nothing else."""
        return self.memory_rerank_api_key.get_secret_value()

    @property
    def token_prices(self) -> tuple[float, float]:
        return self.memory_llm_price_in_per_1k, self.memory_llm_price_out_per_1k


def _load() -> LingixConfig:
    try:
        return LingixConfig()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']).upper()}: {err['msg']}" for err in exc.errors())
        raise ConfigurationError(f"bad environment setting: {problems}") from None


@functools.cache
def config() -> LingixConfig:
    """The settings, read from the environment on the first call and kept."""
    return _load()


def reload_config() -> LingixConfig:
    """Read the environment again (tests that change it; a process that loaded an env file)."""
    config.cache_clear()
    return config()
