"""Extractive answers on real papers: every sentence is quoted from the page it cites."""

import re
from pathlib import Path

from assistant.service import Assistant
from assistant.types import Scope
from ingest.cleanup import drop_note_marks
from ingest.pdf import read_pdf
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF


def _pages(store: Store, paper_id: str) -> list[str]:
    row = store.catalog.get(paper_id)
    assert row is not None and row.path
    return read_pdf(Path(row.path)).pages


def _flat(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def test_cited_span_is_in_the_cited_page(corpus: Store) -> None:
    answer = Assistant(corpus).ask("How many papers and full texts does S2ORC contain?")
    assert not answer.abstained and answer.sentences
    for sentence in answer.sentences:
        assert sentence.citations
        for c in sentence.citations:
            source = answer.sources[c.number - 1]
            assert source.number == c.number and source.chunk_id == c.chunk_id
            assert source.text[c.span_start : c.span_end] == c.quote
            if c.page_start:
                pages = _pages(corpus, c.paper_id)
                page_text = drop_note_marks("\n\n".join(pages[c.page_start - 1 : c.page_end]))
                # letters and digits only: chunking restores spaces the PDF lost ("machinereadable"), and the
                # cleanup drops note marks ("S2ORC,1 a large corpus")
                assert _flat(c.quote) in _flat(page_text)
    assert f"[{answer.sentences[0].citations[0].number}]" in answer.text
    assert any("S2ORC" in s.title for s in answer.sources)


def test_abstains_on_a_question_the_corpus_cannot_answer(corpus: Store) -> None:
    answer = Assistant(corpus).ask("What is the melting point of tungsten carbide in kelvin?")
    assert answer.abstained
    assert "don't answer" in answer.text and not answer.sentences


def test_ask_pdf_scope_quotes_only_that_paper(corpus: Store) -> None:
    pid = read_pdf(LONGEVAL_PDF).paper_id
    answer = Assistant(corpus).ask(
        "What guidelines are given for human evaluation of faithfulness?", Scope(paper_id=pid)
    )
    assert {s.paper_id for s in answer.sources} == {pid}
    assert all(c.paper_id == pid for s in answer.sentences for c in s.citations)


def test_follow_up_question_resolves_it_to_the_previous_topic(corpus: Store) -> None:
    assistant = Assistant(corpus)
    chat_id = assistant.start_chat(Scope())
    first = assistant.ask("What is the S2ORC corpus?", chat_id=chat_id)
    assert any("S2ORC" in s.title for s in first.sources)
    follow = assistant.ask("How many papers does it contain?", chat_id=chat_id)
    assert "S2ORC" in follow.standalone_question
    assert follow.sources[0].title.startswith("S2ORC")
    alone = assistant.ask("How many papers does it contain?")
    assert alone.standalone_question == "How many papers does it contain?"
    turns = corpus.chats.turns(chat_id)
    assert [t.question for t in turns] == ["What is the S2ORC corpus?", "How many papers does it contain?"]
    assert read_pdf(S2ORC_PDF).paper_id == follow.sources[0].paper_id
