"""Small things an operator meets in the first hour: the front door, readable CLI output,
every import error, an empty search, and a quiet server log for refused requests."""

import json
import logging

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_front_door_leads_to_the_review_desk():
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert Client().get("/", follow=True).status_code == 200


def test_status_prints_schedules_one_per_line(cli):
    code, out, _ = cli("status")
    assert code == 0 and not out.lstrip().startswith("{")
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("schedules ("))
    assert "Asia/Shanghai (UTC+08:00)" in lines[header]
    schedule_lines = [line for line in lines[header + 1 :] if line.startswith("  ")]
    assert any("expire L3" in line and "every 10 min" in line and "+08:00 (Asia/Shanghai)" in line for line in schedule_lines)
    assert not any('"func"' in line for line in lines)


def test_import_and_export_print_text_and_every_import_error(cli, tmp_path, demo_memories):
    exported = tmp_path / "all.jsonl"
    code, out, _ = cli("export", "--output", str(exported))
    assert code == 0 and out.strip() == f"exported {len(demo_memories)} memories (every version) to {exported}"

    code, out, _ = cli("import", str(exported), "--dry-run")
    assert code == 0 and out.startswith("would import 0 memories, skipped") and "dry run: nothing was written" in out

    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        "\n".join(
            [
                json.dumps({"layer": "L9", "content": "双11 预算翻倍"}, ensure_ascii=False),
                json.dumps({"layer": "L2"}),
                "{not json",
                json.dumps({"layer": "L4", "content": "美妆冷启动模板"}, ensure_ascii=False),
            ]
        ),
        encoding="utf-8",
    )
    code, _, err = cli("import", str(bad))
    assert code == 1 and "(and" not in err
    assert err.splitlines()[0].endswith("problems:")
    listed = [line.strip() for line in err.splitlines()[1:]]
    assert [line.split(":")[0] for line in listed] == ["line 1", "line 2", "line 3", "line 4"]
    code, body, _ = cli("import", str(bad), "--json")
    assert code == 1 and len(body["errors"]) == 4


def test_an_empty_search_is_an_error(cli):
    for query in ("", "   "):
        code, out, err = cli("search", query)
        assert code != 0 and out == ""
        assert len(err.strip().splitlines()) == 1 and "query is empty" in err


def test_a_reviewers_403_leaves_no_traceback_in_the_log(caplog, reviewer_client):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = reviewer_client.get("/admin/auth/user/add/")
    assert response.status_code == 403
    refused = [r for r in caplog.records if getattr(r, "status_code", None) == 403]
    assert refused, "the refusal is still logged, as one line"
    assert all(r.exc_info is None and r.exc_text is None for r in refused)
    assert "Traceback" not in caplog.text


def test_a_server_error_keeps_its_traceback():
    from lingix_site.log_filters import ClientErrorsWithoutTraceback

    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys

        record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Internal Server Error", (), sys.exc_info())
    record.status_code = 500
    assert ClientErrorsWithoutTraceback().filter(record) and record.exc_info is not None


def test_subcommands_without_their_own_renderer_print_text(cli, demo_memories):
    code, out, _ = cli("embed-backfill")
    assert code == 0 and "{" not in out and out.splitlines()[0] == "embedded: 0"
    code, out, _ = cli("seed-demo")
    assert code == 0 and out.splitlines()[0] == "loaded: False"


def test_maintain_renders_each_task_as_indented_fields():
    from lingix_site.cli.maintain import _maintain_render

    text = _maintain_render(
        {"expire": {"expired": 3, "by_layer": {"L3": 3}, "memory_ids": [1, 2, 3]}, "promote": {"outcomes": [], "by_layer": {}}}
    )
    assert text.splitlines() == ["expire:", "  expired: 3", "  by_layer.L3: 3", "promote:", "  outcomes: (none)", "  by_layer: (none)"]
