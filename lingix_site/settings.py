"""Settings for Lingix Memory. Every deployment-specific value comes from the environment."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy

from lingix_config import config

# The bundled embedder's OpenMP team spins between calls; one thread per process costs
# less when several processes share the machine. (numpy's BLAS is held to one thread in
# memories.apps, which works whatever was imported first.)
os.environ.setdefault("OMP_NUM_THREADS", "1")

BASE_DIR = Path(__file__).resolve().parent.parent
# Every value below that an operator may set comes from this one typed object
# (lingix_config/config.py: names, types, defaults); secrets stay on it and are not copied here.
env = config()

SECRET_KEY = env.django_secret_key.get_secret_value()
DEBUG = env.django_debug
ALLOWED_HOSTS = list(env.django_allowed_hosts)

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
DATABASES = {"default": dj_database_url.parse(env.database_url or DEFAULT_DATABASE_URL)}
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
TIME_ZONE = env.tz_name
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# Request bodies beyond this are refused before parsing (the API adds its own 413).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.memory_max_body_bytes

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
        "django": {"handlers": [], "level": env.log_level, "propagate": True},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
        "django.request": {"handlers": [], "filters": ["client_errors_without_traceback"], "propagate": True},
    },
    "root": {"handlers": ["console"], "level": env.log_level},
}

# --- memory service -------------------------------------------------------
# The values tests override through Django's settings (pytest-django's `settings`). Provider
# selection is resolved (and refused when missing) in judges; the key is not copied here.
MEMORY_LLM_PROVIDER = env.memory_llm_provider
MEMORY_LLM_BASE_URL = env.memory_llm_base_url
MEMORY_JUDGE_MODEL = env.memory_judge_model
MEMORY_DOUBTMEM_BASE_URL = env.memory_doubtmem_base_url
MEMORY_DOUBTMEM_MODEL = env.memory_doubtmem_model
MEMORY_LLM_TIMEOUT = env.memory_llm_timeout
MEMORY_LLM_MAX_RETRIES = env.memory_llm_max_retries
MEMORY_ENTITIES_LLM = env.memory_entities_llm
MEMORY_DEEP_TIMEOUT = env.memory_deep_timeout
# The cross-encoder deep search reranks with; its key, like the gateway's, is not copied here.
MEMORY_RERANK_ENDPOINT = env.memory_rerank_endpoint
MEMORY_RERANK_MODEL = env.memory_rerank_model

MEMORY_EMBEDDING_PROVIDER = env.memory_embedding_provider
MEMORY_EMBEDDING_MODEL = env.memory_embedding_model
MEMORY_EMBEDDING_BASE_URL = env.memory_embedding_base_url
MEMORY_EMBEDDING_DIMENSIONS = env.memory_embedding_dimensions
MEMORY_EMBEDDING_BATCH_SIZE = env.memory_embedding_batch_size
MEMORY_EMBED_THREADS = env.memory_embed_threads
# Tests and benchmarks embed synchronously; the web process defers to on_commit as well.
MEMORY_EMBED_ON_WRITE = env.memory_embed_on_write

# --- django-q2 -------------------------------------------------------------
Q_CLUSTER = {
    "name": "lingix",
    # The admin's section title for the task tables (django_q's default is "Django Q").
    "label": gettext_lazy("Scheduled tasks"),
    "orm": "default",
    "workers": env.q_workers,
    "timeout": 240,
    "retry": 300,
    "max_attempts": 2,
    "catch_up": False,
    "save_limit": 500,
    "sync": env.q_sync,
}
# Access counts are flushed by a background thread in long-lived processes.
MEMORY_ACCESS_ASYNC = env.memory_access_async
# Per-token request rate for the agent API (ninja throttling syntax, e.g. "120/min").
MEMORY_API_RATE = env.memory_api_rate
# Expensive requests one token may have in flight (per process), and how much of a query the embedder reads.
MEMORY_API_CONCURRENCY = env.memory_api_concurrency
MEMORY_EMBED_QUERY_TOKENS = env.memory_embed_query_tokens
# Query vectors kept per process for repeated queries (agents repeat themselves); 0 turns the cache off.
MEMORY_QUERY_CACHE_SIZE = env.memory_query_cache_size
