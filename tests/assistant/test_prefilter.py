"""The keyword pre-filter chooses which sentences the extractive answerer embeds: one keyword-rich passage may
not take every place, so an answer further down the retrieved passages still gets weighed."""

from __future__ import annotations

from unittest import mock

import assistant.extractive as extractive
from assistant.extractive import PER_PASSAGE, PREFILTER, ExtractiveAnswerer
from assistant.types import Passage
from storage.store import Store

QUESTION = "Which algorithm trains the crawler agent?"
CHATTY = [  # keyword-rich, no answer: each names the crawler, the agent and its training
    "The crawler agent is the first component we describe in this paper about the crawler.",
    "Training the crawler agent takes many steps, and the crawler agent trains on search sessions.",
    "We describe how the crawler agent trains before describing the selector agent.",
    "The crawler agent and its training are shown in the overview figure of the crawler.",
    "This section of the paper is about the crawler agent and how the agent trains.",
    "The crawler agent trains for a long time on many machines before it is evaluated.",
    "Readers interested in the crawler agent training may also consult the appendix.",
]
ANSWER = "The crawler agent is trained with proximal policy optimization (PPO) over whole search sessions."


def _passage(n: int, text: str) -> Passage:
    return Passage(f"c{n}", "paper", "A paper search agent", [], 2025, None, n + 1, n + 1, text, number=n + 1)


def _sources() -> list[Passage]:
    filler = "Unrelated results on image classification are reported in a table of accuracies per dataset."
    return [_passage(0, " ".join(CHATTY)), _passage(1, filler), _passage(2, f"We train the crawler with RL. {ANSWER}")]


def test_one_passage_gives_at_most_per_passage_of_the_sentences_embedded(corpus: Store) -> None:
    embedded: list[list[str]] = []
    real = extractive.similarities

    def spy(model, query, texts):  # type: ignore[no-untyped-def]
        embedded.append(list(texts))
        return real(model, query, texts)

    with mock.patch.object(extractive, "similarities", spy):
        ExtractiveAnswerer(corpus.embedder, corpus.settings.answer).answer(QUESTION, QUESTION, _sources())
    texts = embedded[0]
    assert len(texts) <= PREFILTER
    assert sum(t in CHATTY for t in texts) == PER_PASSAGE  # seven keyword-rich sentences, two embedded
    assert "We train the crawler with RL." in texts


def test_the_answer_further_down_is_weighed_and_quoted(corpus: Store) -> None:
    answer = ExtractiveAnswerer(corpus.embedder, corpus.settings.answer).answer(QUESTION, QUESTION, _sources())
    quotes = [c.quote for s in answer.sentences for c in s.citations]
    assert not answer.abstained, answer.notes
    assert any("proximal policy optimization" in q for q in quotes), quotes
