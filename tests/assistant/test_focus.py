"""The question as a search inside one paper and the sentence scorer read it: the paper's own name taken out of
the search, acronyms spelled out (`assistant.focus`, `assistant.acronyms`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from assistant.acronyms import acronyms, definitions, expand, glossary, is_acronym, long_form
from assistant.extractive import ExtractiveAnswerer
from assistant.focus import (
    as_written,
    asks_of_named,
    camel_names,
    focus,
    named_papers,
    paper_query,
    spelled_out,
    title_names,
    with_acronyms,
    without_own_name,
)
from assistant.retrieval import HybridRetriever
from assistant.service import Assistant
from assistant.types import Passage, Scope
from ingest.uploads import ingest_pdf
from storage.store import Store
from tests.helpers.pdfs import text_pdf

MIRO = "MiroThinker: Pushing the Performance Boundaries of Open-Source Research Agents"


def _passage(paper_id: str, title: str, text: str) -> Passage:
    return Passage(f"{paper_id}#0", paper_id, title, [], 2025, None, 1, 1, text)


@pytest.mark.parametrize(
    ("acronym", "before", "expected"),
    [
        ("GRPO", "we employ Group Relative Policy Optimization", "group relative policy optimization"),
        ("PPO", "a session-level Proximal Policy Optimization", "proximal policy optimization"),
        ("CoT", "prompting with Chain-of-Thought", "chain-of-thought"),
        ("LoRA", "fine-tuned with Low-Rank Adaptation", "low-rank adaptation"),
        ("RLVR", "Reinforcement Learning with Verifiable Rewards", "reinforcement learning with verifiable reward"),
        ("LLMs", "agents built on Large Language Models", "large language model"),
    ],
)
def test_a_long_form_is_read_from_the_words_before_the_bracket(acronym: str, before: str, expected: str) -> None:
    assert long_form(acronym, before) == expected


@pytest.mark.parametrize(
    ("acronym", "before"),
    [
        ("PPO", "we compare against the baseline"),  # the words do not spell it
        ("GRPO", "policy optimization"),  # only the tail of it: the first letter must start the long form
        ("RL", "the"),
    ],
)
def test_words_that_do_not_spell_the_acronym_are_no_long_form(acronym: str, before: str) -> None:
    assert long_form(acronym, before) is None


def test_definitions_reads_every_spelled_out_acronym_of_a_text() -> None:
    text = (
        "We employ Group Relative Policy Optimization (GRPO; Shao et al., 2024) after Supervised Fine-Tuning "
        "(SFT), unlike the baselines (see Table 2)."
    )
    assert dict(definitions(text)) == {"GRPO": "group relative policy optimization", "SFT": "supervised fine-tuning"}


def test_plain_words_and_names_are_not_acronyms() -> None:
    assert is_acronym("RL") and is_acronym("GRPO") and is_acronym("LLMs") and is_acronym("CoT")
    assert not is_acronym("MiroThinker") and not is_acronym("WebArena") and not is_acronym("PDF")
    assert acronyms("Which PDFs does the RL agent read with MiroThinker's LLMs?") == ["RL", "LLMs"]


def test_the_bundled_glossary_knows_the_field_s_acronyms() -> None:
    assert len(glossary()) > 1000
    assert expand("RL") == "reinforcement learning"
    assert expand("GRPO") == "group relative policy optimization"
    assert expand("LLMs") == "large language model"
    assert expand("RL", {"RL": "representation learning"}) == "representation learning"  # the text at hand first


def test_a_title_gives_the_names_it_starts_with() -> None:
    assert title_names(MIRO) == ["MiroThinker"]
    assert title_names("MiroThinker-1.7 & H1: Towards Heavy-Duty Research Agents") == ["MiroThinker", "H1"]
    assert title_names("MiroThinker v1.0: Pushing ...") == ["MiroThinker"]  # a version is no part of the name
    assert title_names("Qwen2.5 Technical Report: ...") == []  # more than a name before the colon
    assert title_names("MEM1: Learning to Synergize Memory and Reasoning") == ["MEM1"]  # a digit of the name stays
    assert title_names("Search-R1: Training LLMs to Reason and Leverage Search Engines") == ["Search-R1"]
    assert title_names("S2ORC: The Semantic Scholar Open Research Corpus") == ["S2ORC"]
    assert title_names("Self-Distilled Agentic Reinforcement Learning") == []
    assert title_names("Towards a general theory of all the things people do: a survey") == []


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What RL algorithm is used to train MiroThinker?", "What RL algorithm is used to train it?"),
        ("What is MiroThinker's reward function?", "What is its reward function?"),
        ("How many tool calls can MiroThinker-v1.0-72B make?", "How many tool calls can it make?"),
        ("What is MiroThinker?", "What is MiroThinker?"),  # the name is what is asked about
        ("What reward does the agent get?", "What reward does the agent get?"),
    ],
)
def test_inside_one_paper_its_own_name_becomes_it(question: str, expected: str) -> None:
    assert without_own_name(question, MIRO) == expected


def test_the_sentence_scorer_keeps_the_name_and_spells_acronyms_out() -> None:
    sources = [_passage("a", MIRO, "MiroThinker v1.0 is developed under the ReAct paradigm.")]
    assert focus("Which agent paradigm is MiroThinker built on?", sources).text == (
        "Which agent paradigm is MiroThinker built on?"  # the answering sentence has the name as its subject
    )
    assert focus("Which RL algorithm trains MiroThinker?", sources).text == (
        "Which RL (reinforcement learning) algorithm trains MiroThinker?"
    )


def test_acronyms_are_spelled_out_as_the_sources_define_them_else_as_the_glossary_does() -> None:
    sources = [_passage("a", MIRO, "We train with Reward-Weighted Regression (RWR) on math.")]
    seen = focus("Does RWR beat RL here?", sources)
    assert seen.text == "Does RWR (reward-weighted regression) beat RL (reinforcement learning) here?"
    assert seen.long_forms == {"RWR": "reward-weighted regression", "RL": "reinforcement learning"}
    assert spelled_out("How is reinforcement learning (RL) used?").text == "How is reinforcement learning (RL) used?"


def test_a_search_inside_one_paper_reads_the_focused_question() -> None:
    assert paper_query("What RL algorithm is used to train MiroThinker?", MIRO) == (
        "What RL (reinforcement learning) algorithm is used to train it?"
    )


def test_a_sentence_that_spells_the_long_form_out_counts_as_using_the_acronym() -> None:
    seen = spelled_out("Which RL algorithm is used?")
    own = {"RL": {"rl"}}
    assert with_acronyms({"stage"}, "The final stage leverages reinforcement learning.", seen, own) == {"stage", "rl"}
    assert with_acronyms({"stage"}, "The final stage is supervised.", seen, own) == {"stage"}


def test_a_search_inside_one_paper_drops_its_name_only_when_asked(corpus: Store) -> None:
    (s2orc,) = [r["paper_id"] for r in corpus.catalog.query("SELECT paper_id FROM papers WHERE title LIKE 'S2ORC%'")]
    searched: list[str] = []
    search = corpus.keywords.search
    corpus.keywords.search = lambda query, *a, **kw: searched.append(query) or search(query, *a, **kw)  # type: ignore[method-assign]
    question = "What NLP model is pretrained on S2ORC?"
    for on in (False, True):
        settings = corpus.settings.retrieval.model_copy(update={"paper_focus": on})
        assert HybridRetriever(corpus, settings).retrieve(question, Scope(paper_id=s2orc), 8)
    assert searched == [question, "What NLP (natural language processing) model is pretrained on it?"]


def test_with_the_focus_on_a_sentence_spelling_the_acronym_out_matches_it(store: Store) -> None:
    sources = [
        _passage("a", MIRO, "The final stage leverages reinforcement learning to adapt the agent. We also log runs."),
    ]
    question = "Which RL stage adapts the agent?"
    scores = {}
    for on in (False, True):
        answerer = ExtractiveAnswerer(store.embedder, store.settings.answer.model_copy(update={"focus": on}))
        pool = answerer._pool(question, sources)
        scores[on] = max(c.lexical for c in pool.cands if "reinforcement" in c.sentence.text)
        assert pool.query == (spelled_out(question).text if on else question)
    assert scores[True] > scores[False]


def test_a_camelcase_name_is_read_as_the_paper_writes_it() -> None:
    """A name set in small capitals comes out of the PDF as two words ("paper mage"): inside that paper the
    question's one-word name is read as those words, in the question's capitals."""
    text = "PaperMage: A Unified Toolkit. We introduce paper mage, a toolkit. paper mage is three parts."
    assert camel_names("How many parts does PaperMage have? Is CiteSee like PaSa or RubricEM?") == [
        "PaperMage",
        "CiteSee",
    ]
    assert as_written("How many parts does PaperMage have?", text) == "How many parts does Paper Mage have?"
    # a paper that writes the name as one word as often as apart, or never apart, keeps it
    assert as_written("What is PaperMage?", text + " PaperMage runs parsers.") == "What is PaperMage?"
    assert as_written("What is CiteSee?", "CiteSee highlights citations.") == "What is CiteSee?"


def test_the_paper_s_own_name_written_apart_is_still_its_own_name() -> None:
    title = "PaperMage: A Unified Toolkit for Processing Scientific Documents"
    assert without_own_name("How many parts does Paper Mage have?", title) == "How many parts does it have?"
    assert without_own_name("What is Paper Mage?", title) == "What is Paper Mage?"


def test_ask_pdf_finds_a_name_the_pdf_writes_apart(store: Store, tmp_path: Path) -> None:
    pages = [
        ["PaperMage: A Unified Toolkit for Processing Scientific Documents", "Kyle Lo, Zejiang Shen, Luca Soldaini"],
        [
            "Scientific documents are hard to process because their structure is visual and textual at once.",
            "Researchers who build pipelines over them glue many separate tools and models together by hand.",
            "We introduce paper mage, an open-source Python toolkit for processing scientific documents.",
            "Layout models detect figures and tables on each page of the document before text is read.",
        ],
        [
            "Our evaluation measures logical structure recovery on a benchmark of annotated paper pages.",
            "The default recipe combines a PDF parser with a layout-aware transformer model for tokens.",
            "Users of the recipes report that a whole pipeline now takes a few lines of code to set up.",
            "paper mage is three parts: a document library, model predictors and end-to-end recipes.",
        ],
    ]
    title = pages[0][0]
    paper_id = ingest_pdf(store, text_pdf(tmp_path / "toolkit.pdf", pages, title=title))
    assert as_written("What is PaperMage?", title) == "What is PaperMage?"  # the title alone writes it whole
    answer = Assistant(store).ask("What is PaperMage?", Scope(paper_id=paper_id))
    assert not answer.abstained, answer.notes
    assert answer.sentences[0].text.startswith("We introduce paper mage, an open-source Python toolkit")


RESEEK = "ReSeek: A Self-Correcting Framework for Search Agents with Instructive Rewards"
REWARD_SOURCES = [  # found by both retrievers, as retrieval gives them
    Passage("b#0", "b", "Automated Reward Design for Gran Turismo", [], 2025, None, 1, 1,
            "Our reward design: we design its reward with a language model that scores each lap.", 0.5, 0.6, 4.0,
            number=1),
    Passage("a#0", "a", RESEEK, [], 2025, None, 1, 1,
            "To guide this process, we design a dense, instructive process reward function.", 0.5, 0.6, 4.0, number=2),
]  # fmt: skip


def test_over_many_papers_the_paper_a_question_names_is_the_one_asked_about() -> None:
    assert named_papers("How does ReSeek design its reward?", REWARD_SOURCES) == {1}
    assert named_papers("How does ReSeek's reward work?", REWARD_SOURCES) == {1}
    assert named_papers("How are rewards designed?", REWARD_SOURCES) == set()
    assert named_papers("How does reseek design its reward?", REWARD_SOURCES) == set()  # as written
    agents = [REWARD_SOURCES[0], Passage("c#0", "c", "Agents: A Survey", [], 2025, None, 1, 1, "x", number=2)]
    assert named_papers("How do Agents design rewards?", agents) == set()  # an everyday word is no name
    one_paper = [REWARD_SOURCES[1], Passage("a#1", "a", RESEEK, [], 2025, None, 2, 2, "We train.", number=3)]
    assert named_papers("How does ReSeek design its reward?", one_paper) == set()  # Ask PDF: nothing to tell apart


def test_the_named_paper_s_sentence_leads(store: Store) -> None:
    """The racing paper's sentence matches the question's words better; the question asks about ReSeek."""
    answerer = ExtractiveAnswerer(store.embedder, store.settings.answer)
    question = "How does ReSeek design its reward?"
    lead = answerer.answer(question, question, REWARD_SOURCES).sentences[0]
    assert lead.citations[0].paper_id == "a", lead.text


AGENTRM = "AgentRM: Enhancing Agent Generalization with Reward Modeling"
BENCH_SOURCES = [
    Passage("x#0", "x", "WebArena Agents at Scale", [], 2025, None, 1, 1,
            "We evaluate our agent on WebShop and WebArena, where it beats all baselines.", 0.5, 0.6, 4.0, number=1),
    Passage("r#0", "r", AGENTRM, [], 2025, None, 1, 1,
            "We evaluate AgentRM on ALFWorld and SciWorld, two held-out agent benchmarks.", 0.5, 0.6, 4.0, number=2),
]  # fmt: skip


def test_a_which_question_asked_of_a_paper_it_names_is_answered_from_that_paper(store: Store) -> None:
    assert asks_of_named("Which benchmarks is AgentRM evaluated on?", BENCH_SOURCES)
    assert asks_of_named("Which reward model does AgentRM train?", BENCH_SOURCES)
    assert not asks_of_named("Which benchmarks use AgentRM?", BENCH_SOURCES)  # asked across the papers
    assert not asks_of_named("Which benchmarks is AgentRM evaluated on?", BENCH_SOURCES[1:])  # one paper
    mem1 = replace(BENCH_SOURCES[1], paper_id="m", title="MEM1: Learning to Synergize Memory and Reasoning")
    assert asks_of_named("Which benchmarks is MEM1 evaluated on?", [BENCH_SOURCES[0], mem1])  # its digit kept
    answerer = ExtractiveAnswerer(store.embedder, store.settings.answer)
    question = "Which benchmarks is AgentRM evaluated on?"
    answer = answerer.answer(question, question, BENCH_SOURCES)
    assert not answer.items and answer.sources == BENCH_SOURCES
    assert [c.paper_id for s in answer.sentences for c in s.citations] == ["r"], answer.text
    assert "ALFWorld" in answer.sentences[0].text
    # asked across the papers, it is a list of what all of them name
    asked = "Which benchmarks are agents evaluated on?"
    across = answerer.answer(asked, asked, BENCH_SOURCES)
    assert {i.name for i in across.items} >= {"ALFWorld", "WebShop"}, across.text
