"""The settings file `make run` writes holds no credential, even inside a URL setting."""

from lingix_site.envfile import parse_env_text, write_env_file


def test_a_password_in_database_url_is_never_written(tmp_path):
    written = write_env_file(
        {
            "MEMORY_LLM_PROVIDER": "offline",
            "DATABASE_URL": "postgres://lingix:Pg-美妆双11-s3cret@db.internal:5432/lingix_memory?sslmode=require",
        },
        path=tmp_path / ".lingix.env",
    )
    text = written.read_text(encoding="utf-8")
    assert "s3cret" not in text
    assert parse_env_text(text)["DATABASE_URL"] == "postgres://lingix@db.internal:5432/lingix_memory?sslmode=require"


def test_a_key_in_a_gateway_url_query_is_never_written(tmp_path):
    written = write_env_file(
        {
            "MEMORY_LLM_PROVIDER": "openai",
            "MEMORY_LLM_BASE_URL": "https://gw.example/v1?api_key=sk-医药OTC-9f8e&region=cn",
            "MEMORY_EMBEDDING_BASE_URL": "https://bot:tok-ROI-77@emb.example/v1",
        },
        path=tmp_path / ".lingix.env",
    )
    values = parse_env_text(written.read_text(encoding="utf-8"))
    assert values["MEMORY_LLM_BASE_URL"] == "https://gw.example/v1?region=cn"
    assert values["MEMORY_EMBEDDING_BASE_URL"] == "https://bot@emb.example/v1"
    assert "sk-" not in written.read_text(encoding="utf-8") and "tok-ROI" not in written.read_text(encoding="utf-8")


def test_plain_settings_are_written_unchanged(tmp_path):
    environ = {"MEMORY_LLM_PROVIDER": "offline", "DATABASE_URL": f"sqlite:///{tmp_path / 'lingix.db'}", "TZ_NAME": "Asia/Shanghai"}
    values = parse_env_text(write_env_file(environ, path=tmp_path / ".lingix.env").read_text(encoding="utf-8"))
    assert values == environ
