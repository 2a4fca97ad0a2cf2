"""An answer rests on the catalog's state at its `changes_version`, not on what the vector store holds beyond
it: an ingest writes a paper's vectors after marking it pending and before marking it indexed (both catalog
writes), so between the two the catalog stands still while the vector store already holds the new chunks.
An answer made in that window must be the answer made just before the vectors landed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from assistant.service import Assistant
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers
from papertalk.settings import Settings
from storage.store import Store
from storage.vectors import VectorIndex
from tests.conftest import demo_records

NEW = 4  # demo records beyond the corpus's 30, ingested while answering


class Stop(Exception):
    """Ends the ingest right after its vectors were written (as a kill there would)."""


def answer_of(assistant: Assistant, question: str, scope: Any = None) -> tuple[Any, list[str], int, int]:
    answer = assistant.ask(question, scope)
    return answer.text, [s.chunk_id for s in answer.sources], answer.changes_version, answer.changes_version_after


@pytest.mark.parametrize("scoped", [False, True])
def test_vectors_written_ahead_of_the_catalog_do_not_change_an_answer(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scoped: bool
) -> None:
    from assistant.types import Scope
    from tests.assistant.conftest import TOPIC

    data = Path(shutil.copytree(corpus_dir, tmp_path / "data"))
    records = demo_records(30 + NEW)[30:]
    (tmp_path / "new.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    questions = [r["title"] for r in records]
    scope = Scope(topic=TOPIC) if scoped else None
    store = Store(Settings(data_dir=data))
    assistant = Assistant(store)
    seen: dict[str, Any] = {}
    add = VectorIndex.add

    def add_then_stop(self: VectorIndex, *args: Any, **kwargs: Any) -> None:
        seen.update({q: answer_of(assistant, q, scope) for q in questions})  # the catalog marked pending
        add(self, *args, **kwargs)
        raise Stop

    monkeypatch.setattr(VectorIndex, "add", add_then_stop)
    try:
        with pytest.raises(Stop):
            Ingestor(store).run(arxiv_papers(tmp_path / "new.jsonl"))
        assert store.vectors.count() > store.catalog.count_chunks()  # the new vectors are there, ahead
        for question in questions:
            assert answer_of(assistant, question, scope) == seen[question]
    finally:
        store.close()
