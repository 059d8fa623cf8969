"""Settings for Lingix Memory. Every deployment-specific value comes from the environment."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

# The bundled embedder's OpenMP team spins between calls; one thread per process costs
# less when several processes share the machine. (numpy's BLAS is held to one thread in
# memories.apps, which works whatever was imported first.)
os.environ.setdefault("OMP_NUM_THREADS", "1")

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "lingix-dev-only-insecure-key-change-me")
DEBUG = _env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]

INSTALLED_APPS = [
    # Before django.contrib.admin, so the desk's admin templates override Django's.
    "desk",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # Before django_q so our `qcluster` (which refuses to start without a provider) wins.
    "lingix_site",
    "django_q",
    "ninja",
    "memories",
    "governance",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "lingix_site.urls"
WSGI_APPLICATION = "lingix_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------
DEFAULT_DATABASE_URL = f"sqlite:///{BASE_DIR / 'data' / 'lingix.db'}"
DATABASES = {"default": dj_database_url.parse(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock at BEGIN, so web and qcluster writers queue on the
    # busy timeout instead of failing with "database is locked" on lock upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache holds the API's per-token rate-limit counts. On PostgreSQL (several web
# workers, maybe several machines) they live in a table every worker shares, so the limit
# is one limit; on SQLite (one machine, usually one web process) the process's memory
# serves and no request has to take the single-writer lock just to count itself.
RATE_LIMIT_CACHE_TABLE = "lingix_rate_limit_cache"
if DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": RATE_LIMIT_CACHE_TABLE}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TZ_NAME", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# Request bodies beyond this are refused before parsing (the API adds its own 413).
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("MEMORY_MAX_BODY_BYTES", 256 * 1024))

# Every handler redacts credentials (tokens in a URL, bearer headers) from every record.
# Django's own handlers are redefined here so none of them writes unfiltered: the access
# log of runserver keeps its format, and `django` logs go to the root console.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "redact_credentials": {"()": "lingix_site.log_redaction.RedactCredentials"},
        "client_errors_without_traceback": {"()": "lingix_site.log_filters.ClientErrorsWithoutTraceback"},
    },
    "formatters": {"django.server": {"()": "django.utils.log.ServerFormatter", "format": "[{server_time}] {message}", "style": "{"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["redact_credentials"]},
        "django.server": {
            "level": "INFO",
            "class": "logging.StreamHandler",
            "formatter": "django.server",
            "filters": ["redact_credentials"],
        },
    },
    "loggers": {
        "django": {"handlers": [], "level": os.environ.get("LOG_LEVEL", "WARNING"), "propagate": True},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
        "django.request": {"handlers": [], "filters": ["client_errors_without_traceback"], "propagate": True},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# --- memory service -------------------------------------------------------
# Provider selection is resolved (and refused when missing) in judges;
# here we only read the raw environment so nothing secret is copied into settings dumps.
MEMORY_LLM_PROVIDER = os.environ.get("MEMORY_LLM_PROVIDER", "").strip().lower()
MEMORY_LLM_BASE_URL = os.environ.get("MEMORY_LLM_BASE_URL", "https://api.openai.com/v1")
MEMORY_JUDGE_MODEL = os.environ.get("MEMORY_JUDGE_MODEL", "gpt-4o-mini")
MEMORY_DOUBTMEM_BASE_URL = os.environ.get("MEMORY_DOUBTMEM_BASE_URL", "")
MEMORY_DOUBTMEM_MODEL = os.environ.get("MEMORY_DOUBTMEM_MODEL", "DoubtMem-AxisGRPO-Qwen3-4B-step150")
MEMORY_LLM_TIMEOUT = float(os.environ.get("MEMORY_LLM_TIMEOUT", "20"))
MEMORY_LLM_MAX_RETRIES = int(os.environ.get("MEMORY_LLM_MAX_RETRIES", "2"))
# Entity extraction by the gateway model after each write (one more chat call per write);
# off by default, and only with the openai provider. Offline extraction always runs.
MEMORY_ENTITIES_LLM = os.environ.get("MEMORY_ENTITIES_LLM", "").strip().lower() in {"1", "true", "yes", "on"}
# Deep search's rewrite and rerank calls: one attempt each, then the fast result.
MEMORY_DEEP_TIMEOUT = float(os.environ.get("MEMORY_DEEP_TIMEOUT", "8"))

MEMORY_EMBEDDING_PROVIDER = os.environ.get("MEMORY_EMBEDDING_PROVIDER", "local").strip().lower()
MEMORY_EMBEDDING_MODEL = os.environ.get("MEMORY_EMBEDDING_MODEL", "text-embedding-3-small")
MEMORY_EMBEDDING_BASE_URL = os.environ.get("MEMORY_EMBEDDING_BASE_URL", "") or MEMORY_LLM_BASE_URL
MEMORY_EMBEDDING_DIMENSIONS = int(os.environ.get("MEMORY_EMBEDDING_DIMENSIONS", "0")) or None
MEMORY_EMBEDDING_BATCH_SIZE = int(os.environ.get("MEMORY_EMBEDDING_BATCH_SIZE", "64"))
MEMORY_EMBED_THREADS = int(os.environ.get("MEMORY_EMBED_THREADS", "1"))
# Tests and benchmarks embed synchronously; the web process defers to on_commit as well.
MEMORY_EMBED_ON_WRITE = _env_bool("MEMORY_EMBED_ON_WRITE", True)

# --- django-q2 -------------------------------------------------------------
Q_CLUSTER = {
    "name": "lingix",
    "orm": "default",
    "workers": int(os.environ.get("Q_WORKERS", "1")),
    "timeout": 240,
    "retry": 300,
    "max_attempts": 2,
    "catch_up": False,
    "save_limit": 500,
    "sync": _env_bool("Q_SYNC", False),
}
# Access counts are flushed by a background thread in long-lived processes.
MEMORY_ACCESS_ASYNC = _env_bool("MEMORY_ACCESS_ASYNC", True)
# Per-token request rate for the agent API (ninja throttling syntax, e.g. "120/min").
MEMORY_API_RATE = os.environ.get("MEMORY_API_RATE", "120/min")
# Expensive requests one token may have in flight (per process), and how much of a query the embedder reads.
MEMORY_API_CONCURRENCY = int(os.environ.get("MEMORY_API_CONCURRENCY", "2"))
MEMORY_EMBED_QUERY_TOKENS = int(os.environ.get("MEMORY_EMBED_QUERY_TOKENS", "96"))
# Query vectors kept per process for repeated queries (agents repeat themselves); 0 turns the cache off.
MEMORY_QUERY_CACHE_SIZE = int(os.environ.get("MEMORY_QUERY_CACHE_SIZE", "1024"))
