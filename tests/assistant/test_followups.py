"""Follow-ups made standalone offline: context only where the question needs it, and never much longer."""

from __future__ import annotations

import itertools

import pytest

from assistant.followups import MAX_SUBJECT_WORDS, needs_context, references, short_title, standalone, subject

S2ORC_TITLE = "S2ORC: The Semantic Scholar Open Research Corpus"
OFFLINE_RL_TITLE = "Offline Reinforcement Learning for LLM Multi-Step Reasoning"
EARLIER = ["What is the S2ORC corpus?"]


@pytest.mark.parametrize(
    "question",
    [
        "Who won the 1998 World Cup?",
        "What is the boiling point of water?",
        "What guidelines does LongEval give for human evaluation?",
        "How does agentic RL differ from RLHF?",
        "What benchmarks are used to evaluate web agents?",
        "Is it true that BM25 beats dense retrieval?",  # "it" refers to nothing
        "Is it possible to train agents without rewards?",
        "It seems that PPO is unstable; why?",
        "What is BERT and how is it trained?",  # "it" is BERT, named just before
        "Which agents use PaSa and what do they retrieve?",
        "Is there a dataset that covers biology?",  # "that" is a relative pronoun here
        "What does the PaSa paper say about the authors of S2ORC?",
        "How many papers does S2ORC contain?",
        "Does it matter which tokenizer is used?",
        "What is the IT budget of the US?",  # capitals: names, not pronouns
    ],
)
def test_a_question_that_stands_alone_is_kept_exactly(question: str) -> None:
    assert not needs_context(question)
    assert standalone(question, EARLIER, S2ORC_TITLE) == question


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many papers does it contain?", "How many papers does the S2ORC corpus contain?"),
        ("How is it trained?", "How is the S2ORC corpus trained?"),
        ("how is it trained", "how is the S2ORC corpus trained"),
        ("It covers which fields?", "The S2ORC corpus covers which fields?"),
        ("What datasets do they use?", "What datasets do the S2ORC corpus use?"),
        ("What are its limitations?", "What are the S2ORC corpus's limitations?"),
        ("What about their training data?", "What about the S2ORC corpus's training data?"),
        ("How does it compare to BM25?", "How does the S2ORC corpus compare to BM25?"),
        ("How does it differ from PubMed?", "How does the S2ORC corpus differ from PubMed?"),
        ("What is the difference between it and PMC?", "What is the difference between the S2ORC corpus and PMC?"),
        ("Was it released publicly?", "Was the S2ORC corpus released publicly?"),
        ("And them?", "And the S2ORC corpus?"),
        ("What does that mean?", "What does that (the S2ORC corpus) mean?"),
        ("Explain this.", "Explain this (the S2ORC corpus)."),
        ("Does this approach handle long documents?", "Does this approach (the S2ORC corpus) handle long documents?"),
        ("Which of these methods works best?", "Which of these methods (the S2ORC corpus) works best?"),
        ("Why?", "Why (the S2ORC corpus)?"),
        ("Tell me more.", "Tell me more (the S2ORC corpus)."),
        ("Can you summarize this paper?", "Can you summarize this paper (S2ORC)?"),
        ("Who are the authors?", "Who are the authors (S2ORC)?"),
        ("What did the authors find?", "What did the authors (S2ORC) find?"),
        ("What does this work say about reward shaping?", "What does this work (S2ORC) say about reward shaping?"),
        (
            "What are the main findings on reward shaping in this paper?",
            "What are the main findings on reward shaping in this paper (S2ORC)?",
        ),
    ],
)
def test_a_follow_up_gets_the_previous_subject(question: str, expected: str) -> None:
    assert needs_context(question)
    assert standalone(question, EARLIER, S2ORC_TITLE) == expected


def test_without_a_cited_paper_this_paper_means_the_previous_subject() -> None:
    assert standalone("Who are the authors?", ["What is PaSa?"]) == "Who are the authors (PaSa)?"


def test_without_history_nothing_is_added() -> None:
    for question in ["How many papers does it contain?", "Why?", "Who are the authors?"]:
        assert standalone(question, [], S2ORC_TITLE) == question


def test_nothing_to_borrow_keeps_the_question() -> None:
    assert standalone("How is it trained?", ["Why?", "And then?"]) == "How is it trained?"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is the S2ORC corpus?", "the S2ORC corpus"),
        ("How many papers does S2ORC contain?", "S2ORC"),
        ("Who won the 1998 World Cup?", "the 1998 World Cup"),
        ("What is the boiling point of water?", "the boiling point of water"),
        ("What is reinforcement learning for LLM agents?", "reinforcement learning for LLM agents"),
        ("How does agentic RL differ from RLHF?", "agentic RL and RLHF"),
        ("What benchmarks are used to evaluate web agents?", "web agents"),
        ("What datasets does this approach (agentic RL) use?", "agentic RL"),
        ("Who are the authors (S2ORC)?", "S2ORC"),
        ("Why (the S2ORC corpus)?", "the S2ORC corpus"),
        ("What are the main challenges of long-horizon planning?", "challenges of long-horizon planning"),
        ("Why does reward hacking happen?", "reward hacking"),
        ("Does deep reinforcement learning scale?", "deep reinforcement learning"),
        ("What does PaSa retrieve?", "PaSa"),
        ("How many papers does it contain?", ""),
        ("Why?", ""),
    ],
)
def test_subject_of_a_question(question: str, expected: str) -> None:
    assert subject(question) == expected


def test_subject_is_clipped_to_a_short_phrase() -> None:
    long = "What is the effect of curriculum design on sample efficiency of multi turn web agents with sparse rewards?"
    found = subject(long)
    assert 0 < len(found.split()) <= MAX_SUBJECT_WORDS and found.startswith("the effect of curriculum design")


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        (S2ORC_TITLE, "S2ORC"),
        ("PaSa: An LLM Agent for Comprehensive Academic Paper Search", "PaSa"),
        (OFFLINE_RL_TITLE, OFFLINE_RL_TITLE),  # seven words, no colon: whole
        (
            "Integrating Reinforcement Learning and AI Agents for Adaptive Robotic Interaction and Assistance in Care",
            "Integrating Reinforcement Learning and AI Agents for Adaptive",
        ),
    ],
)
def test_short_title(title: str, expected: str) -> None:
    assert short_title(title) == expected


def test_the_subject_carries_through_a_chain_of_follow_ups() -> None:
    earlier = ["What is PaSa?"]
    for question in ["How is it trained?", "What does it retrieve?", "Which tools does it call?"]:
        rewritten = standalone(question, earlier)
        assert "PaSa" in rewritten
        earlier.append(rewritten)
    assert earlier[-1] == "Which tools does PaSa call?"


def test_an_off_topic_question_becomes_the_subject_after_it() -> None:
    earlier = ["What is PaSa?", "What is the boiling point of water?"]
    assert standalone("How is it measured?", earlier) == "How is the boiling point of water measured?"


FOLLOW_UPS = [
    "How many papers does it contain?",
    "What are its limitations?",
    "Who are the authors?",
    "Why?",
    "What does that mean?",
    "And how do they compare with each other on the benchmarks they report?",
    "What is the boiling point of water?",
]
CONTEXTS = [
    ["What is the S2ORC corpus?"],
    ["What is the effect of curriculum design on sample efficiency of multi turn web navigation agents?"],
    ["How do Proposer Agent Evaluator Skill Discovery Foundation Model Internet Agents compare?"],
    ["What is it?"],
]
TITLES = ["", S2ORC_TITLE, "A Very Long Title Without Any Colon That Goes On And On About Agents And Rewards"]


@pytest.mark.parametrize(("question", "earlier", "title"), list(itertools.product(FOLLOW_UPS, CONTEXTS, TITLES)))
def test_standalone_is_at_most_the_question_and_one_short_phrase(question: str, earlier: list[str], title: str) -> None:
    result = standalone(question, earlier, title)
    assert len(result.split()) <= len(question.split()) + MAX_SUBJECT_WORDS
    assert result == question or needs_context(question)


def test_references_are_found_in_order() -> None:
    found = references("Do they train their models the way this paper and the authors suggest?")
    assert [(r.form, r.about_paper) for r in found] == [
        ("pronoun", False),
        ("possessive", False),
        ("phrase", True),
        ("phrase", True),
    ]
