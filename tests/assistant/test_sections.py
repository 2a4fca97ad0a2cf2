"""A chunk's section travels from ingest to the answer: catalog row, Chroma metadata, passage, citation, the
CLI's source list and the HTTP API's JSON ("§2.5, p. 4")."""

from __future__ import annotations

from pathlib import Path

from assistant.service import Assistant
from assistant.types import Citation, Passage, Scope, section_mark
from storage.store import Store
from tests.api.conftest import client_for
from tests.assistant.test_cli_answers import run

QUESTION = "How many papers does the S2ORC corpus contain?"


def _s2orc_id(store: Store) -> str:
    (row,) = store.catalog.query("SELECT paper_id FROM papers WHERE title LIKE 'S2ORC:%'")
    return str(row[0])


def test_sections_are_stored_in_the_catalog_and_in_chroma(corpus: Store) -> None:
    chunks = corpus.catalog.chunks_of(_s2orc_id(corpus))
    sections = {c.section for c in chunks}
    assert {"1 Introduction", "2.1 Processing PDFs", "References"} <= sections
    assert any(c.caption for c in chunks) and not all(c.caption for c in chunks)
    some = [c for c in chunks if c.section == "2.1 Processing PDFs"]
    stored = corpus.vectors.collection.get(ids=[c.chunk_id for c in some], include=["metadatas"])
    assert [m["section"] for m in stored["metadatas"] or []] == ["2.1 Processing PDFs"] * len(some)


def test_passages_and_citations_carry_the_section(corpus: Store) -> None:
    answer = Assistant(corpus).ask(QUESTION, Scope(paper_id=_s2orc_id(corpus)))
    assert not answer.abstained and answer.sentences
    for sentence in answer.sentences:
        for c in sentence.citations:
            source = answer.sources[c.number - 1]
            assert c.section == source.section and c.section  # every full-text chunk knows its section
            assert c.where.startswith(section_mark(c.section)) and f"p. {c.page_start}" in c.where
    data = answer.to_dict()
    assert data["sentences"][0]["citations"][0]["section"] == answer.sentences[0].citations[0].section


def test_section_marks_read_as_people_cite() -> None:
    assert section_mark("4.2 Reward design") == "§4.2"
    assert section_mark("4.2 Reward design", short=False) == "§4.2 Reward design"
    assert section_mark("A.1 Prompts") == "§A.1" and section_mark("References") == "References"
    citation = Citation(1, "c", "p", 10, 10, 0, 1, "q", 1.0, section="4.2 Reward design")
    assert citation.where == "§4.2, p. 10"
    passage = Passage("c", "p", "A Paper", [], 2025, None, 10, 11, "text", section="4.2 Reward design")
    assert passage.label() == "A Paper (2025), §4.2 Reward design, pp. 10-11"
    assert Passage("c", "p", "A Paper", [], None, None, None, None, "abstract").label() == "A Paper"


def test_cli_source_list_shows_the_section(corpus: Store) -> None:
    out = run("ask", QUESTION, "--paper", _s2orc_id(corpus))
    assert out.returncode == 0, out.stderr
    sources = out.stdout.split("Sources", 1)[1]
    assert "§" in sources and "p. " in sources


def test_api_citation_json_has_the_section(corpus_dir: Path, corpus: Store) -> None:
    with client_for(corpus_dir) as client:
        question = {"question": QUESTION, "scope": {"paper_id": _s2orc_id(corpus)}}
        response = client.post("/api/chat", json=question)
    assert response.status_code == 200, response.text
    answer = response.json()
    citation = answer["sentences"][0]["citations"][0]
    source = answer["sources"][citation["number"] - 1]
    assert citation["section"] and citation["section"] == source["section"]
    assert isinstance(source["caption"], bool)
