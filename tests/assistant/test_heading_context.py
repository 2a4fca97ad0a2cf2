"""A sentence reads the run-in heading it follows: since cleanup sets "Reward Design." apart from "A trajectory scores
one point ...", the heading's words are the sentence's too when it is scored against the question, as they were
while the two were glued (docs/benchmarks.md, "A sentence reads its run-in heading")."""

from __future__ import annotations

from assistant.extractive import ExtractiveAnswerer, _headed_sentences
from assistant.types import Passage
from storage.store import Store

ROLLOUTS = "We run thousands of rollouts in parallel."
REWARD = "A trajectory scores one point for a correct final answer and loses half a point for a malformed tool call."
DESIGN = "The design of the agent follows the ReAct paradigm."


def _passage(number: int, text: str) -> Passage:
    return Passage(f"c{number}", "agent", "A deep research agent", [], 2025, None, number, number, text, number=number)


def test_each_sentence_knows_the_run_in_heading_it_follows() -> None:
    sources = [_passage(1, f"{ROLLOUTS} Reward Design. {REWARD} {DESIGN}"), _passage(2, REWARD)]
    headed = [(i, s.text, h) for i, s, h in _headed_sentences(sources)]
    assert (0, REWARD, "Reward Design.") in headed
    assert (0, DESIGN, "") in headed  # only the sentence right after the heading
    assert (0, ROLLOUTS, "") in headed
    assert (1, REWARD, "") in headed  # a passage's first sentence follows nothing
    assert "We use GRPO." not in {h for *_, h in _headed_sentences([_passage(1, f"We use GRPO. {REWARD}")])}


def test_the_heading_lifts_the_sentence_it_opens(corpus: Store) -> None:
    question = "How is the reward designed?"
    # made-up passages have no retrieval ranks for abstention to weigh: it is left out here
    settings = corpus.settings.answer.model_copy(update={"abstain_below": 0.0, "abstain_evidence": 0.0})
    answerer = ExtractiveAnswerer(corpus.embedder, settings)
    sources = [_passage(1, f"{ROLLOUTS} Reward Design. {REWARD}"), _passage(2, DESIGN)]
    headed = answerer.answer(question, question, sources)
    assert headed.sentences[0].text == REWARD, [s.text for s in headed.sentences]
    # the same passages without the heading: the sentence that repeats "design" leads, as it did before
    bare = answerer.answer(question, question, [_passage(1, f"{ROLLOUTS} {REWARD}"), _passage(2, DESIGN)])
    assert bare.sentences[0].text == DESIGN, [s.text for s in bare.sentences]
