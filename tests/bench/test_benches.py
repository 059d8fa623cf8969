"""The benchmarks run end to end on tiny inputs and print the documented JSON shape.
(Figures are measured by running the benches, never asserted here.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[2]


def _run(*argv: str, tmp_path: Path) -> dict:
    env = isolated_env(OMP_NUM_THREADS="1", TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


def _tiny_locomo() -> list[dict]:
    def turn(speaker, dia, text, **extra):
        return {"speaker": speaker, "dia_id": dia, "text": text, **extra}

    conversation = {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            turn("Caroline", "D1:1", "Hey Mel! I went to a pottery class yesterday."),
            turn("Melanie", "D1:2", "That's great! What did you make?"),
            turn("Caroline", "D1:3", "A blue bowl for my grandmother.", blip_caption="a photo of a blue ceramic bowl"),
        ],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [
            turn("Melanie", "D2:1", "I adopted a puppy named Biscuit last week."),
            turn("Caroline", "D2:2", "Biscuit is such a cute name for a dog!"),
        ],
    }
    qa = [
        {"question": "What did Caroline make in pottery class?", "answer": "a bowl", "evidence": ["D1:3"], "category": 4},
        {"question": "When did Melanie adopt her puppy?", "answer": "June 2023", "evidence": ["D2:1", "D9:99"], "category": 2},
        {"question": "What is the dog called?", "answer": "Biscuit", "evidence": ["D2:1", "D2:2"], "category": 1},
        {"question": "Would Caroline enjoy crafts?", "answer": "yes", "evidence": [], "category": 3},
        {"question": "What did Melanie paint?", "adversarial_answer": "a lake", "evidence": ["D1:2"], "category": 5},
    ]
    return [
        {"sample_id": "conv-a", "conversation": conversation, "qa": qa},
        {"sample_id": "conv-b", "conversation": {**conversation, "session_2": conversation["session_2"][:1]}, "qa": qa[:1]},
    ]


def test_locomo_bench_reports_three_modes(tmp_path):
    data = tmp_path / "tiny_locomo.json"
    data.write_text(json.dumps(_tiny_locomo()), encoding="utf-8")

    doc = _run("bench.locomo", "--json", "--data", str(data), "--quiet", tmp_path=tmp_path)

    assert doc["conversations"] == 2 and doc["turns"] == 9
    # Category 5 is out; the category-3 question has no evidence; D9:99 names no turn.
    assert doc["data_stats"] == {"questions_total": 5, "evidence_dropped": 1, "questions_skipped": 1}
    assert doc["questions"] == 4
    for mode in ("hybrid", "keyword", "vector"):
        overall = doc[mode]["overall"]
        assert set(overall) == {"recall@5", "recall@10", "hit@10", "questions"}
        assert all(0.0 <= overall[k] <= 1.0 for k in ("recall@5", "recall@10", "hit@10"))
        assert overall["questions"] == 4
        assert set(doc[mode]["by_category"]) == {"1-multi-hop", "2-temporal", "4-single-hop"}
    # Five or fewer turns per conversation: everything fits in the top 10.
    assert doc["hybrid"]["overall"]["recall@10"] == 1.0
    assert doc["config"]["turn_format"] and doc["config"]["ranking"]


def test_locomo_deep_mode_runs_with_the_configured_reranker(tmp_path, fake_openai):
    """MEMORY_RERANK_ENDPOINT reaches the bench through the environment, and its output
    says which reranker answered (a cross-encoder scoring every document equally here)."""
    from tests.fakes.openai_server import rerank

    fake_openai.route(lambda req: req.path.endswith("/rerank"), lambda req: rerank([(i, 0.5) for i in range(len(req.json["documents"]))]))
    data = tmp_path / "tiny_locomo.json"
    data.write_text(json.dumps(_tiny_locomo()), encoding="utf-8")
    env = isolated_env(OMP_NUM_THREADS="1", TMPDIR=str(tmp_path), MEMORY_RERANK_ENDPOINT=f"{fake_openai.base_url}/rerank")
    done = subprocess.run(
        [sys.executable, "-m", "bench.locomo", "--json", "--data", str(data), "--quiet", "--modes", "deep"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    deep = json.loads(done.stdout)["deep"]
    assert deep["deep_hooks"] == {"offline/cross-encoder": 4} and deep["fallbacks"] == 0
    assert len(fake_openai.requests_to("/rerank")) == 4


def test_locomo_bench_refuses_a_missing_file_in_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bench.locomo", "--json", "--data", str(tmp_path / "nope.json")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "nope.json" in done.stderr


def test_latency_bench_reports_each_size(tmp_path):
    doc = _run("bench.latency", "--json", "--sizes", "60,150", "--queries", "8", "--base-texts", "12", "--quiet", tmp_path=tmp_path)
    assert [r["n"] for r in doc["results"]] == [60, 150]
    for row in doc["results"]:
        for key in ("search_p50_ms", "search_p95_ms", "search_p99_ms", "embed_p50_ms", "import_per_s", "numpy_scan_p95_ms"):
            assert row[key] > 0, key
        assert row["search_p50_ms"] <= row["search_p95_ms"] <= row["search_p99_ms"]
    assert "vectors" in doc["method"]


def test_tokenizer_bench_compares_bigrams_and_jieba(tmp_path):
    doc = _run("bench.zh_tokens", "--json", tmp_path=tmp_path)
    assert doc["queries"] >= 20
    assert {"bigram", "jieba"} <= set(doc["variants"])
    for metrics in doc["variants"].values():
        assert 0.0 <= metrics["recall@5"] <= 1.0 and 0.0 <= metrics["mrr@10"] <= 1.0


def test_backup_bench_restores_the_exact_store(tmp_path):
    doc = _run("bench.backup", "--json", "--quiet", "--size", "300", tmp_path=tmp_path)
    assert doc["backend"] == "sqlite" and doc["memories"] == 300
    # The drift after the backup really changed the store, and the restore undid all of it.
    assert doc["imported_after_backup"] == 1000 and doc["archived_after_backup"] == 50
    assert doc["restore_exact"] is True and doc["keyword_results_identical"] is True
    # SQLite's vector search is an exact scan, so hybrid results come back identical too.
    assert doc["hybrid_results_identical"] is True and doc["hybrid_overlap_at_10"] == 1.0
    assert doc["fingerprint_before"] == doc["fingerprint_after_restore"]


def test_security_bench_runs_every_family_and_finds_no_stored_secret(tmp_path):
    # The log family (a runserver subprocess) is covered by tests/api/test_log_redaction; it is
    # left out here because it failed intermittently under load and the cause is not known yet.
    doc = _run("bench.security", "--json", "--quiet", "--cases", "8", "--no-live", tmp_path=tmp_path)
    families = {row["family"]: row for row in doc["families"]}
    assert set(families) == {
        "provenance",
        "tenancy",
        "global_rewrite",
        "secrets_pii",
        "self_vouching",
        "injection",
        "hostile_json",
        "oversized",
        "hex_named",
        "cloud_vendors",
        "database_cli",
        "percent_encoded",
        "secret_keys",
        "personal_separators",
        "split_turns",
        "split_turns_many",
        "short_fields",
        "erasure",
    }
    assert doc["corpus_cases"] == 8 and families["secrets_pii"]["secret_values"] >= 8
    # The scan read real bytes: the marker stored on purpose was found in them.
    assert doc["database_files"]["control_marker_found"] is True and doc["database_files"]["bench.db"] > 0
    totals = doc["totals"]
    assert totals["5xx"] == 0
    assert totals["secret_bytes_db"] == totals["secret_bytes_recall"] == totals["secret_bytes_log"] == 0
    assert families["hostile_json"]["refused"] == families["hostile_json"]["attempts"]
    assert families["tenancy"]["leaked"] == 0 and families["injection"]["written"] == 0
    assert families["oversized"]["notes"].startswith("cut reported on 6/6")
    assert families["split_turns_many"]["refused"] == families["split_turns_many"]["attempts"] == 5
    # Every erasure attempt erased a memory (a parked one is approved first), and none was left.
    assert "nothing to erase" not in families["erasure"]["notes"] and families["erasure"]["secret_values"] == 6
    fp = doc["false_positives"]
    assert fp["benign_flagged"] == fp["benign_as_turns_flagged"] == fp["demo_flagged"] == fp["demo_as_turns_flagged"] == 0


def test_entity_ablation_bench_runs_both_arms_on_both_sets(tmp_path):
    doc = _run("bench.entities", "--json", "--quiet", tmp_path=tmp_path)
    assert doc["entity_links"] > doc["documents"] and doc["relations"] > 0
    assert set(doc["sets"]) == {"tokenization_set", "entity_set"}
    for row in doc["sets"].values():
        assert row["entities_off"]["queries_with_entity_score"] == 0
        assert row["entities_on"]["queries_with_entity_score"] > 0
        for arm in ("entities_on", "entities_off"):
            assert 0.0 <= row[arm]["recall@10"] <= 1.0


def _descendants(pid: int) -> dict[int, str]:
    """pid -> its start time (field 22 of /proc/pid/stat), for every process below `pid`."""
    found: dict[int, str] = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            started = _start_time(child)
            if started is not None:
                found[child] = started
                found.update(_descendants(child))
    return found


def _start_time(pid: int) -> str | None:
    """None once the process is gone (a zombie waiting to be reaped counts as gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]


def test_scale_out_stops_its_servers_when_terminated_half_way(tmp_path):
    """gunicorn and the qclusters run in sessions of their own, so a SIGTERM to the bench
    reaches none of them: the bench must stop them (and their workers) itself."""
    import signal
    import time

    err = tmp_path / "stderr.txt"
    argv = ["--sqlite", "--workers", "2", "--clients", "1", "--seconds", "4", "--visibility-writes", "1", "--expire-memories", "10"]
    env = isolated_env(OMP_NUM_THREADS="1", TMPDIR=str(tmp_path))
    with err.open("w") as stderr:
        bench = subprocess.Popen(
            [sys.executable, "-m", "bench.scale_out", *argv], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
    seen: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 400
        # "writes:" is printed once gunicorn answers and both qclusters are up.
        while bench.poll() is None and "writes:" not in err.read_text() and time.monotonic() < deadline:
            seen.update(_descendants(bench.pid))
            time.sleep(0.5)
        seen.update(_descendants(bench.pid))
        assert bench.poll() is None, err.read_text()
        assert len(seen) >= 5, seen  # gunicorn, its 2 workers, 2 qclusters (and their workers)
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(timeout=120) != 0
        left = {pid for pid, started in seen.items() if _start_time(pid) == started}
        assert not left, f"still running after the bench ended: {sorted(left)}"
    finally:
        if bench.poll() is None:
            bench.kill()
        for pid, started in seen.items():
            if _start_time(pid) == started:
                os.kill(pid, signal.SIGKILL)


# Benches that write over a whole database (fill, drop tables, restore) and what each run reports.
GUARDED_BENCHES = [
    (
        "bench.backup",
        ["--size", "50"],
        lambda doc: doc["backend"] == "postgresql" and doc["memories"] == 50 and doc["restore_exact"] is True,
    ),
    ("bench.pg_vector_copies", ["--rows", "50"], lambda doc: doc["layouts"]["vector_only"]["bytes_per_row"] > 0),
]


@pytest.mark.parametrize(("module", "size", "reported"), GUARDED_BENCHES, ids=[m for m, _, _ in GUARDED_BENCHES])
def test_a_writing_bench_never_touches_a_database_it_was_not_told_to_use(tmp_path, module, size, reported):
    """A DATABASE_URL naming an operator's server is left alone (nothing listens at this one;
    the bench would fail connecting to it) and the bench runs on a throwaway PostgreSQL
    instead; told to use DATABASE_URL, it wants PostgreSQL."""
    prod = "postgres://ops@127.0.0.1:1/lingix_prod"
    done = subprocess.run(
        [sys.executable, "-m", module, "--json", "--quiet", *size],
        cwd=REPO,
        env=isolated_env(OMP_NUM_THREADS="1", TMPDIR=str(tmp_path), DATABASE_URL=prod),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "with_postgres: PostgreSQL ready" in done.stderr
    doc = json.loads(done.stdout)
    assert reported(doc), doc

    refused = subprocess.run(
        [sys.executable, "-m", module, "--database-url-from-env", *size],
        cwd=REPO,
        env=isolated_env(DATABASE_URL=f"sqlite:///{tmp_path / 'x.db'}"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1].endswith("needs DATABASE_URL=postgres://…")
    assert not (tmp_path / "x.db").exists()
