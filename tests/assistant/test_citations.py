"""Post-checks of generated answers against real passages (abstracts of real arXiv records)."""

from __future__ import annotations

import pytest
from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.citations import CitationChecker, answer_sentences, is_abstention, parse_marker, strip_markers
from assistant.extractive import NOT_ANSWERED
from assistant.types import Answer, Passage
from ingest.sentences import split_sentences
from papertalk.settings import AnswerSettings, Settings
from storage.embeddings import build_embedding
from tests.conftest import demo_records


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> BaseEmbedding:
    return build_embedding(Settings(data_dir=tmp_path_factory.mktemp("data")))


@pytest.fixture(scope="module")
def sources() -> list[Passage]:
    return [
        Passage(
            chunk_id=f"{r['id']}#0",
            paper_id=r["id"],
            title=r["title"],
            authors=[],
            year=2024,
            link=None,
            page_start=1,
            page_end=1,
            text=r["abstract"],
            number=i,
        )
        for i, r in enumerate(demo_records(5), start=1)
    ]


def sentence(passage: Passage, index: int = 0) -> str:
    """A real sentence of the passage, whitespace-normalized, without its final period."""
    found = [s for s in split_sentences(passage.text) if len(s.text) > 60]
    return " ".join(found[index].text.split()).rstrip(".")


def check(embedder: BaseEmbedding, text: str, sources: list[Passage], threshold: float = 0.5) -> Answer:
    settings = AnswerSettings(support_threshold=threshold)
    return CitationChecker(embedder, settings).check("q", "q", text, sources, "openai")


@pytest.mark.parametrize(
    ("body", "numbers"),
    [("1", [1]), ("1, 3", [1, 3]), ("2-4", [2, 3, 4]), ("5–3", [5, 3]), ("1;2, 2", [1, 2]), ("1-900", [1, 900])],
)
def test_marker_bodies(body: str, numbers: list[int]) -> None:
    assert parse_marker(body) == numbers


def test_markers_are_removed_from_the_plain_text_and_normalized_in_the_cited_text() -> None:
    marked = strip_markers("A holds [1,2]. B holds [Source 3][9].\nC [7-8].", {1, 2, 3, 8})
    assert marked.plain == "A holds. B holds.\nC."
    assert marked.cited == "A holds [1, 2]. B holds [3].\nC [8]."
    assert marked.removed == [9, 7]
    assert [(off, nums) for off, nums in marked.marks] == [(7, [1, 2]), (16, [3]), (19, [8])]


def test_verbatim_claim_gets_the_exact_span_of_its_source(embedder: BaseEmbedding, sources: list[Passage]) -> None:
    claim = sentence(sources[1], 1)
    answer = check(embedder, f"{claim} [2].", sources)
    (only,) = answer.sentences
    (citation,) = only.citations
    passage = sources[1]
    assert citation.number == 2 and citation.chunk_id == passage.chunk_id and citation.page_start == 1
    assert passage.text[citation.span_start : citation.span_end] == citation.quote
    assert " ".join(citation.quote.split()).rstrip(".") == claim
    assert only.supported and only.support is not None and only.support > 0.9
    assert answer.text == f"{claim} [2]." and answer.backend == "openai" and not answer.notes


def test_marker_after_the_period_belongs_to_the_sentence_before(
    embedder: BaseEmbedding, sources: list[Passage]
) -> None:
    first, second = sentence(sources[0]), sentence(sources[2])
    answer = check(embedder, f"{first}.[1] {second}. [3]", sources)
    assert [s.text for s in answer.sentences] == [f"{first}.", f"{second}."]
    assert [[c.number for c in s.citations] for s in answer.sentences] == [[1], [3]]
    assert all(s.supported for s in answer.sentences)


def test_citations_to_missing_sources_are_removed_and_reported(embedder: BaseEmbedding, sources: list[Passage]) -> None:
    first, second = sentence(sources[0]), sentence(sources[3])
    answer = check(embedder, f"{first} [1, 12]. {second} [0].", sources)
    assert answer.removed_citations == [12, 0]
    assert answer.text == f"{first} [1]. {second}."
    assert [c.number for c in answer.sentences[0].citations] == [1]
    assert answer.sentences[0].supported
    # the second sentence is a claim that now cites nothing
    assert answer.sentences[1].citations == [] and not answer.sentences[1].supported
    assert any("[12], [0]" in note for note in answer.notes)


def test_a_claim_cited_to_the_wrong_source_is_unsupported(embedder: BaseEmbedding, sources: list[Passage]) -> None:
    right, wrong = sentence(sources[0]), sentence(sources[4])
    answer = check(embedder, f"{right} [1]. {wrong} [1].", sources)
    good, bad = answer.sentences
    assert good.supported
    assert not bad.supported and bad.support is not None and bad.support < 0.5 < (good.support or 0)
    assert any("1 of 2 sentences" in note for note in answer.notes)


def test_several_sources_for_one_sentence_each_get_a_span(embedder: BaseEmbedding, sources: list[Passage]) -> None:
    claim = sentence(sources[2])
    answer = check(embedder, f"{claim} [1-3].", sources)
    (only,) = answer.sentences
    assert [c.number for c in only.citations] == [1, 2, 3]
    for c in only.citations:
        assert sources[c.number - 1].text[c.span_start : c.span_end] == c.quote
    assert only.support == max(c.support for c in only.citations) == only.citations[2].support
    assert only.supported


def test_uncited_claims_are_unsupported_but_connectives_and_questions_are_not(
    embedder: BaseEmbedding, sources: list[Passage]
) -> None:
    claim = sentence(sources[1])
    text = f"In short:\n- {claim} [2]\n- Agents trained this way outperform every baseline by a wide margin.\nWhy?"
    answer = check(embedder, text, sources)
    assert [s.supported for s in answer.sentences] == [True, True, False, True]
    assert answer.sentences[2].support is None and answer.sentences[0].citations == []


def test_unnumbered_sources_are_numbered_by_position(embedder: BaseEmbedding, sources: list[Passage]) -> None:
    plain = [Passage(**{**p.__dict__, "number": 0}) for p in sources[:2]]
    answer = check(embedder, f"{sentence(plain[1])} [2].", plain)
    assert answer.sentences[0].citations[0].number == 2 and answer.sentences[0].supported


def test_an_abstention_is_no_unsupported_claim(embedder: BaseEmbedding, sources: list[Passage]) -> None:
    answer = check(embedder, f"<think>The sources are about agents.</think>{NOT_ANSWERED}", sources)
    assert answer.abstained and answer.text == NOT_ANSWERED
    assert all(s.supported for s in answer.sentences)
    assert is_abstention("The sources don’t mention the dataset size.")
    assert not is_abstention(sentence(sources[0]))


def test_an_empty_reply_becomes_an_abstention(embedder: BaseEmbedding, sources: list[Passage]) -> None:
    answer = check(embedder, "  ", sources)
    assert answer.abstained and answer.text == NOT_ANSWERED and answer.sentences == []
    assert "empty" in answer.notes[0]


def test_list_items_are_separate_sentences() -> None:
    text = "Findings:\n- first item without a period\n- second item. With two sentences"
    found = answer_sentences(text)
    assert [s.text for s in found] == [
        "Findings:",
        "first item without a period",
        "second item.",
        "With two sentences",
    ]
    assert all(text[s.start : s.end] == s.text for s in found)
