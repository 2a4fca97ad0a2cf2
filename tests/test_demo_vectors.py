"""The demo corpus's shipped vectors: what they are tied to, what happens when that differs, and that they are
the model's own vectors for the corpus's chunks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from ingest.chunking import Chunker
from ingest.demo_vectors import (
    SENTENCES_FILE,
    VECTORS_FILE,
    ShippedVectors,
    dequantize,
    model_sha256,
    quantize,
    read_sentences,
    read_shipped,
    shipped_embedder,
    shipped_outcome,
    text_key,
    texts_digest,
)
from ingest.sentences import split_sentences, usable
from ingest.sources import pdf_papers
from papertalk.settings import Settings
from storage.embeddings import LocalMiniLMEmbedding
from tests.conftest import LONGEVAL_PDF
from tests.helpers.cli import catalog_rows, run_cli

pytestmark = pytest.mark.skipif(not VECTORS_FILE.exists(), reason="papertalk/demo/vectors.npz is not built")


def longeval_texts() -> list[str]:
    paper = next(p for p in pdf_papers([LONGEVAL_PDF]) if not hasattr(p, "fatal"))
    return [c.embed_text for c in Chunker(Settings().chunking).chunk(paper, paper.content_hash())]  # type: ignore[union-attr]


def test_the_shipped_file_is_small_and_records_what_its_vectors_depend_on() -> None:
    assert VECTORS_FILE.stat().st_size < 5 * 2**20
    shipped = read_shipped()
    assert shipped is not None
    meta = shipped.meta
    assert meta["chunking"] == Settings().chunking.model_dump()
    assert len(meta["model_sha256"]) == 64 and len(meta["chunks_sha256"]) == 64
    assert meta["texts_sha256"] == texts_digest(list(shipped.vectors))
    assert meta["chunks"] >= len(shipped.vectors) > 4000


def test_shipped_vectors_are_the_models_own(tmp_path: Path) -> None:
    """A PDF's chunks, as chunked today, are all in the file, and match the model's vectors to float16 precision."""
    shipped = read_shipped()
    assert shipped is not None
    texts = longeval_texts()[:12]
    assert all(text_key(t) in shipped.vectors for t in texts)
    fresh = LocalMiniLMEmbedding().embed_texts(texts)
    stored = np.stack([shipped.vectors[text_key(t)] for t in texts])
    cosines = (fresh * stored).sum(axis=1) / np.linalg.norm(stored, axis=1)
    assert cosines.min() > 0.999


def test_other_chunking_settings_fall_back_to_embedding() -> None:
    settings = Settings(chunking={"chunk_tokens": 120})
    embedder, why = shipped_embedder(settings)
    assert embedder is None and "chunking settings" in why


def test_another_model_file_falls_back_to_embedding(tmp_path: Path) -> None:
    doctored = tmp_path / "vectors.npz"
    with np.load(VECTORS_FILE) as data:
        meta = json.loads(str(data["meta"]))
        meta["model_sha256"] = "0" * 64
        np.savez_compressed(doctored, keys=data["keys"], vectors=data["vectors"], meta=np.array(json.dumps(meta)))
    embedder, why = shipped_embedder(Settings(), doctored)
    assert embedder is None and "model file" in why


def test_chunks_missing_from_the_file_are_embedded_by_the_model_and_reported() -> None:
    texts = longeval_texts()[:6]
    model = LocalMiniLMEmbedding()
    partial = {text_key(t): v for t, v in zip(texts[:3], model.embed_texts(texts[:3]), strict=True)}
    embedder = ShippedVectors(partial)
    out = embedder.embed_texts(texts)
    assert np.allclose(out, model.embed_texts(texts), atol=1e-5)
    assert embedder.misses() == 3
    assert "3 of 6 chunks were embedded here" in shipped_outcome(embedder)


@pytest.mark.slow
def test_demo_load_uses_the_shipped_vectors_and_answers_from_them() -> None:
    result = run_cli("demo", "--load-only", timeout=600)
    assert result.returncode == 0, result.stderr
    assert "chunk vectors loaded from the shipped file (nothing embedded)" in result.stdout
    stats = json.loads(run_cli("stats", "--json").stdout)
    assert stats["vectors"] == stats["chunks"] == read_shipped().meta["chunks"]  # type: ignore[union-attr]
    question = "guidelines for human evaluation of faithfulness in long-form summarization"
    answer = run_cli("ask", question, "--json", timeout=300)
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout)["sources"][0]["title"].startswith("LONGEVAL")
    assert_the_assigner_decided_the_topics()
    assert_demo_serves_its_topic_page()


def assert_the_assigner_decided_the_topics() -> None:
    """No demo paper is tagged by hand: the demo topic holds the papers whose score puts them there (part of the
    corpus, which a keyword filter picked), and the neighbouring topics hold theirs."""
    data_dir = Path(os.environ["PAPERTALK_DATA_DIR"])
    assert catalog_rows(data_dir, "SELECT COUNT(*) FROM paper_topics") == [(0,)]
    by_score = dict(catalog_rows(data_dir, "SELECT slug, COUNT(*) FROM topic_scores WHERE assigned = 1 GROUP BY slug"))
    listed = {t["slug"]: t["papers"] for t in json.loads(run_cli("topics", "list", "--json").stdout)}
    assert listed == {slug: by_score.get(slug, 0) for slug in listed}
    assert 1000 < listed["rl-for-llm-agents"] < 2212 and sum(n > 0 for n in listed.values()) >= 13


def assert_demo_serves_its_topic_page() -> None:
    """`papertalk demo` (corpus loaded) ends with the server up and prints the topic page's address."""
    import socket
    import subprocess
    import time
    import urllib.request

    from tests.helpers.cli import PAPERTALK, cli_env

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [str(PAPERTALK), "demo", "--port", str(port)], env=cli_env(), stdout=subprocess.PIPE, text=True
    )
    try:
        address = f"http://127.0.0.1:{port}/#/topic/rl-for-llm-agents"
        printed = ""
        while address not in printed.replace("\n", "") and proc.poll() is None and printed.count("\n") < 8:
            printed += proc.stdout.readline()  # type: ignore[union-attr]
        assert address in printed.replace("\n", ""), printed
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/topics/rl-for-llm-agents") as response:
                    assert json.loads(response.read())["slug"] == "rl-for-llm-agents"
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as response:
                    assert b"/static/app.js" in response.read()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_int8_sentence_vectors_keep_their_direction() -> None:
    vectors = LocalMiniLMEmbedding().embed_texts(["We employ GRPO.", "The corpus holds 81.1M papers."], short=True)
    restored = dequantize(*quantize(vectors))
    cosines = (vectors * restored).sum(axis=1) / np.linalg.norm(restored, axis=1)
    assert cosines.min() > 0.999


def test_the_shipped_sentence_vectors_are_the_models_own_and_tied_to_it(tmp_path: Path) -> None:
    assert SENTENCES_FILE.stat().st_size < 10 * 2**20
    served = read_sentences(model_sha256=model_sha256())
    assert len(served) > 15000
    paper = next(p for p in pdf_papers([LONGEVAL_PDF]) if not hasattr(p, "fatal"))
    chunks = Chunker(Settings().chunking).chunk(paper, paper.content_hash())  # type: ignore[union-attr]
    texts = [s.text for c in chunks[:4] for s in split_sentences(c.text) if usable(s)][:12]
    assert texts and all(text_key(t) in served for t in texts)
    fresh = LocalMiniLMEmbedding().embed_texts(texts, short=True)
    stored = np.stack([served[text_key(t)] for t in texts])
    assert ((fresh * stored).sum(axis=1) / np.linalg.norm(stored, axis=1)).min() > 0.999
    assert read_sentences(model_sha256="0" * 64) == {}  # another model file: not served
    assert read_sentences(tmp_path / "none.npz") == {}


def test_sentences_missing_from_the_file_are_embedded_and_counted() -> None:
    texts = ["We employ Group Relative Policy Optimization.", "The corpus holds 81.1M papers."]
    model = LocalMiniLMEmbedding()
    served = {text_key(texts[0]): model.embed_texts(texts[:1], short=True)[0]}
    embedder = ShippedVectors({}, sentences=served)
    assert embedder.serves_sentences
    assert np.allclose(embedder.embed_texts(texts, short=True), model.embed_texts(texts, short=True), atol=1e-5)
    assert embedder.sentence_misses() == 1 and embedder.asked == []  # sentences are no chunk asks
