"""The configuration object: every variable the service reads is one typed field, read once
from the environment; nothing else reads the environment."""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from lingix_config import ConfigurationError, LingixConfig, config, reload_config

ROOT = Path(__file__).resolve().parents[2]
APP_PACKAGES = ["api", "desk", "governance", "memories", "judges", "textrules", "lingix_config", "lingix_site"]
# The names CONTRACT.md's "Configuration" table fixes (plus the admin and metrics ones the README documents).
CONTRACT_NAMES = [
    "DATABASE_URL",
    "MEMORY_LLM_PROVIDER",
    "MEMORY_LLM_API_KEY",
    "MEMORY_LLM_BASE_URL",
    "MEMORY_JUDGE_MODEL",
    "MEMORY_DOUBTMEM_BASE_URL",
    "MEMORY_DOUBTMEM_MODEL",
    "MEMORY_EMBEDDING_PROVIDER",
    "MEMORY_EMBEDDING_MODEL",
    "MEMORY_EMBEDDING_BASE_URL",
    "LINGIX_ADMIN_USER",
    "LINGIX_ADMIN_PASSWORD",
    "LINGIX_METRICS_ALLOW",
    "LINGIX_METRICS_TOKEN",
]


def _sources():
    for package in APP_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                yield path, path.read_text(encoding="utf-8")


def test_every_contract_name_is_a_field():
    fields = {name.upper() for name in LingixConfig.model_fields}
    assert set(CONTRACT_NAMES) <= fields


def test_every_variable_the_code_names_is_a_field_with_a_description():
    """Names in strings and comments (messages, docstrings); the OpenClaw plugin's own
    variables are read by Node, not by us."""
    fields = {name.upper() for name in LingixConfig.model_fields}
    named = set()
    for _, text in _sources():
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)):
                named |= set(re.findall(r"\b(?:MEMORY|LINGIX)_[A-Z0-9_]*[A-Z0-9]\b", token.string))
    assert named - fields - {"LINGIX_API_KEY", "LINGIX_BASE_URL"} == set()
    assert [name for name, field in LingixConfig.model_fields.items() if not field.description] == []


def _is_os(node: ast.AST, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) and node.value.id == "os"


def _environment_reads(text: str) -> list[int]:
    """Lines that read os.environ or os.getenv. Settings are read only through
    lingix_config, but writing a variable for a native library to read when it loads is
    not a settings read: memories.apps sets OPENBLAS_NUM_THREADS before numpy loads, to
    hold BLAS to one thread, and settings.py sets OMP_NUM_THREADS for the embedder. So an
    assignment or del of os.environ[...] and a bare os.environ.setdefault(...) statement
    (its value unused) are writes; every other use of os.environ or os.getenv is a read."""
    tree = ast.parse(text)
    writes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del) and _is_os(node.value, "environ"):
            writes.add(id(node.value))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and func.attr == "setdefault" and _is_os(func.value, "environ"):
                writes.add(id(func.value))
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.expr) and (_is_os(n, "environ") or _is_os(n, "getenv"))]
    return sorted({n.lineno for n in uses if id(n) not in writes})


def test_environment_writes_are_told_from_reads():
    source = 'import os\nos.environ["A"] = "1"\nos.environ.setdefault("B", "1")\nx = os.environ.setdefault("C", "1")\ny = os.getenv("D")\n'
    assert _environment_reads(source) == [4, 5]


def test_nothing_else_reads_the_environment():
    # envfile fills the environment from .lingix.env before the object is built (reading it
    # to leave variables already set alone). Writes are not reads (see _environment_reads).
    allowed = {ROOT / "lingix_site" / "envfile.py", ROOT / "lingix_site" / "wsgi.py", ROOT / "lingix_config" / "config.py"}
    readers = [
        f"{path.relative_to(ROOT)}:{number}" for path, text in _sources() if path not in allowed for number in _environment_reads(text)
    ]
    assert readers == []


def test_read_once_and_rebuilt_on_demand(env):
    first = config()
    assert config() is first
    env(MEMORY_LLM_TIMEOUT="3.5")
    assert config() is not first and config().memory_llm_timeout == 3.5


def test_empty_means_default_but_an_empty_allow_list_means_nobody(env):
    env(MEMORY_LLM_TIMEOUT="", MEMORY_EMBEDDING_DIMENSIONS="0", LINGIX_METRICS_ALLOW="", MEMORY_EMBEDDING_BASE_URL="")
    settings = config()
    assert settings.memory_llm_timeout == 20.0 and settings.memory_embedding_dimensions is None
    assert settings.lingix_metrics_allow == ""
    assert settings.memory_embedding_base_url == settings.memory_llm_base_url


def test_words_and_lists_are_normalised(env):
    env(MEMORY_LLM_PROVIDER=" Offline ", DJANGO_ALLOWED_HOSTS="a.example, b.example,", LOG_LEVEL="info", MEMORY_ENTITIES_LLM="yes")
    settings = config()
    assert settings.memory_llm_provider == "offline" and settings.log_level == "INFO"
    assert settings.django_allowed_hosts == ["a.example", "b.example"] and settings.memory_entities_llm is True


@pytest.mark.parametrize("name, value", [("MEMORY_LLM_TIMEOUT", "二十秒"), ("MEMORY_RELATED_COSINE", "1.5"), ("LINGIX_PORT", "http")])
def test_a_wrong_value_names_its_variable(env, name, value):
    with pytest.raises(ConfigurationError, match=name):
        env(**{name: value})
    env(**{name: None})
    assert reload_config() is config()


def test_the_key_stays_out_of_settings_and_reprs(env, settings):
    env(MEMORY_LLM_API_KEY="sk-test-密钥-0123456789abcdef")
    assert config().llm_api_key == "sk-test-密钥-0123456789abcdef"
    assert "sk-test" not in repr(config())
    assert not any("sk-test" in str(getattr(settings, name)) for name in dir(settings) if name.isupper())


def test_the_rerank_key_stays_out_of_settings_and_reprs(env, settings):
    env(MEMORY_RERANK_API_KEY="jina_test-密钥-0123456789abcdef", MEMORY_RERANK_ENDPOINT="https://api.jina.ai/v1/rerank")
    assert config().rerank_api_key == "jina_test-密钥-0123456789abcdef"
    assert config().memory_rerank_model == "jina-reranker-v2-base-multilingual"
    assert "jina_test" not in repr(config())
    assert not any("jina_test" in str(getattr(settings, name)) for name in dir(settings) if name.isupper())


@pytest.mark.parametrize("value", ["/v1/rerank", "file:///etc/passwd", "api.jina.ai/v1/rerank"])
def test_a_rerank_endpoint_that_is_no_http_url_is_refused(env, value):
    with pytest.raises(ConfigurationError, match="MEMORY_RERANK_ENDPOINT"):
        env(MEMORY_RERANK_ENDPOINT=value)
