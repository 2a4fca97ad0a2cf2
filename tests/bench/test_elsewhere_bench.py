"""The bench of questions about a paper outside their topic, run on the test corpus (two PDFs outside its topic)."""

from __future__ import annotations

from pathlib import Path

from bench.bench_elsewhere import run
from papertalk.demo import DEMO_TOPIC
from papertalk.settings import Settings
from storage.store import Store
from tests.conftest import TOPIC


def test_both_pdfs_outside_the_topic_are_pointed_to_and_no_topic_paper_is(corpus_dir: Path) -> None:
    assert TOPIC == DEMO_TOPIC
    store = Store(Settings(data_dir=corpus_dir))
    try:
        body = run(store, per_side=5)
    finally:
        store.close()
    rows = {line.split("|")[1].strip(): line for line in body.splitlines() if line.startswith("| ")}
    # S2ORC and LongEval: 2 papers x 2 questions, each answer names the paper
    assert [c.strip() for c in rows["outside the topic, never written in it"].split("|")[2:5]] == ["4", "4", "0"]
    inside = [row for group, row in rows.items() if group.startswith("inside")]
    assert all(row.split("|")[3].strip() == "0" for row in inside)  # no pointer for a paper in the topic
    assert "p50" in body
