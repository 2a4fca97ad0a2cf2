"""Definition questions ("What is GRPO?"): the answer leads with the sentence that says what the thing is, found
among the retrieved passages or, when they only use the name, in the scope's passages that BM25 ranks best for it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assistant.acronyms import agreed_forms, expand, form_key, glossary, spells_otherwise
from assistant.definitions import best_tier, definition_tier, says_what, with_definition
from assistant.entities import expands
from assistant.extractive import ExtractiveAnswerer
from assistant.retrieval import HybridRetriever
from assistant.sentence_features import defines, describes, introduces, name_like, names_a_variant
from assistant.service import Assistant
from assistant.types import Passage, Scope
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers
from storage.store import Store
from tests.conftest import demo_records


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("To bridge this gap, we propose Agentic Reinforced Policy Optimization (ARPO), a novel RL algorithm.", "ARPO"),
        ("Moreover, it employs MCTS, a heuristic search method driven by policy and reward models.", "MCTS"),
        ("This paper introduces Search-R1, an extension of the DeepSeek-R1 model.", "Search-R1"),
        ("Building on this, we propose a re-defined PRM for agent tasks, named AgentPRM, to capture both.", "AgentPRM"),
        ("GRPO is a critic-free variant of PPO that normalises rewards within a group.", "GRPO"),
        ("we then introduce RAGEN, a modular system for training and evaluating LLM agents", "RAGEN"),
        ("We propose a search agent, dubbed PaSa, that reads whole papers.", "PaSa"),
        ("GRPO [12] is a critic-free method.", "GRPO"),
        # a name of several capitalised words; what it is, then the name after a dash, with its footnote mark
        ("(2) Paper Plain, an interactive reading interface for research papers.", "Paper Plain"),
        ("we introduce a novel interactive interface—Paper Plain1—with four features.", "Paper Plain"),
        ("We present a unified toolkit: PaperMage.", "PaperMage"),
        # everyday words defined in so many words: opening the sentence, or named so
        ("Deep\nresearch is a new agentic capability that conducts multi-step reasoning.", "deep research"),
        ("According to W and H, a counterfactual is an example with minimum deviation.", "counterfactual"),
        ("A sensor inspired by a current source topology called β-multiplier is developed.", "β-multiplier"),
        # the head noun of everyday words, with at most one word of its own before it
        ("A molecular counterfactual is one with a minimal distance from a base molecule.", "chemical counterfactual"),
        ("According to W and H, a counterfactual is an example with minimum deviation.", "chemical counterfactual"),
        ("The piezoresistive effect is the change in resistivity under strain.", "piezoresistive effect in silicon"),
    ],
)
def test_a_sentence_that_says_what_the_thing_is_introduces_it(text: str, subject: str) -> None:
    assert introduces(text, subject)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("We propose SC-GRPO (Self-Conditioned GRPO), which uses KL divergence as a weight on GRPO gradients.", "GRPO"),
        ("Beyond AgentPRM, we propose InversePRM, which learns process rewards from demonstrations.", "AgentPRM"),
        ("In this work, we introduce Agent-RLVR, a framework that makes RLVR effective in agentic settings.", "RLVR"),
        ("To close this gap, we present RA-CAD (ReAct Agent for CAD), a state-aware agent.", "ReAct"),
        ("Our comprehensive evaluation demonstrates that GTPO outperforms GRPO by 3.0% on average.", "GTPO"),
        ("We compare against PPO (see Section 4), the usual baseline.", "PPO"),
        ("With GRPO, a 7B model reaches 51.2% on AIME.", "GRPO"),
        ("Table 3 presents GRPO results on math, and we present GRPO's training curves.", "GRPO"),
        ("The main difference from PPO is a learned value function.", "PPO"),
        ("At the same time, a smaller model is used.", "time"),  # an everyday word is no name to define
        ("For example, a model trained on it.", "an example"),
        ("This is a hard problem.", "this"),
        ("Known about GRPO, a lot.", "known about GRPO"),  # "what is known about X?" asks no definition
        ("We use deep research tools, and deep research is a growing field.", "deep research"),  # not its opening
        ("The first circuit is the β-multiplier with resistor displayed in Fig. 2.", "β-multiplier"),
        # the head of "X in Y" is X's: Y opening a sentence says what Y is
        ("On the other hand, silicon is a well-known material in electronics.", "piezoresistive effect in silicon"),
        ("The new molecular counterfactual is a plus.", "chemical counterfactual"),  # two words of its own before it
        # a list after a colon or a name after a comma is no "what it is — name"
        ("We present results on ALFWorld, WebShop and Search-QA.", "WebShop"),
        ("We introduce two baselines: GRPO and PPO.", "PPO"),
        ("We propose Skill1, a framework that trains one policy.", "Skill"),  # a digit after one word: another name
    ],
)
def test_a_sentence_that_only_uses_the_name_does_not(text: str, subject: str) -> None:
    assert not introduces(text, subject)


def test_an_acronym_spelled_out_after_or_before_it_counts() -> None:
    assert expands("a modified Decoupled Advantage Policy Optimization (DAPO) algorithm", "DAPO")
    assert expands("We train with GRPO (Group Relative Policy Optimization) on math.", "GRPO")
    assert expands("Group Relative Policy Optimization (GRPO; Shao et al., 2024) drops the critic.", "GRPO")
    assert not expands("We train with GRPO (see the appendix) on math.", "GRPO")


def test_the_looser_definition_nudge_reads_the_name_as_a_word() -> None:
    """The nudge's own check (`defines`) no longer takes "GRPO" inside "SC-GRPO" for the subject."""
    assert defines("We introduce S2ORC, a large corpus of 81.1M English-language academic papers.", "S2ORC")
    assert not defines("We propose SC-GRPO, a variant that weighs its gradients by a KL term.", "GRPO")


@pytest.mark.parametrize(
    ("question", "subject", "long_form"),
    [
        ("What is GTPO?", "GTPO", "Group Turn Policy Optimization"),
        ("What is ARPO?", "ARPO", "Agentic Reinforced Policy Optimization"),
    ],
)
def test_a_definition_question_leads_with_the_sentence_that_introduces_the_name(
    tool_use: Store, question: str, subject: str, long_form: str
) -> None:
    answer = Assistant(tool_use).ask(question, Scope())
    assert not answer.abstained, answer.notes
    lead = answer.sentences[0]
    assert long_form in lead.text and introduces(lead.text, subject), [s.text for s in answer.sentences]
    cited = answer.sources[lead.citations[0].number - 1]
    assert long_form.lower() in cited.title.lower() or long_form in cited.text


def test_with_no_source_that_says_what_it_is_one_is_looked_up_by_name(tool_use: Store) -> None:
    retriever = HybridRetriever(tool_use)
    uses = [p for p in retriever.keyword_passages("GTPO", Scope(), 50) if not says_what(p.text, "GTPO")]
    assert uses, "the corpus has passages that use GTPO without saying what it is"
    base = uses[:3]
    found = with_definition(retriever, "What is GTPO?", Scope(), base)
    assert found[: len(base)] == base and len(found) == len(base) + 1
    added = found[-1]
    assert says_what(added.text, "GTPO") and re.search(r"Group Turn Policy Optimization \(GTPO\)", added.text)
    # sources that already say it, or a question that asks no definition, are left as they are
    assert with_definition(retriever, "What is GTPO?", Scope(), found) == found
    assert with_definition(retriever, "How is GTPO trained?", Scope(), base) == base


@pytest.mark.parametrize("question", ["What is the boiling point of water?", "What is time?", "What is an example?"])
def test_a_definition_of_something_no_paper_defines_adds_nothing(tool_use: Store, question: str) -> None:
    retriever = HybridRetriever(tool_use)
    sources = retriever.retrieve(question, Scope())
    assert with_definition(retriever, question, Scope(), sources) == sources
    assert Assistant(tool_use).ask(question, Scope()).abstained


@pytest.mark.parametrize(
    ("subject", "is_name"),
    [
        ("GRPO", True),
        ("PaSa", True),
        ("Search-R1", True),
        ("Paper Plain", True),  # several capitalised words: the asker's capitals make it a name
        ("Civil Rights Litigation Clearinghouse", True),
        ("deep research", False),
        ("time", False),
        ("Transformer", False),  # one capitalised word may just open a phrase
        ("Paper plain", False),
    ],
)
def test_a_name_is_told_from_everyday_words(subject: str, is_name: bool) -> None:
    assert name_like(subject) is is_name


# One paper of the demo spells GRPO "Generalized Reward Policy Optimization"; nearly every other one "Group
# Relative Policy Optimization", as the glossary does.
ODD_GRPO = (
    "GRPO, short for Generalized Reward Policy Optimization (GRPO), is the reinforcement learning algorithm that "
    "trains our agents."
)
USUAL_GRPO = (
    "In the second stage the rollouts of each prompt are compared with one another by Group Relative Policy "
    "Optimization (GRPO) as verl implements it."
)


def _passage(paper_id: str, text: str, number: int = 1) -> Passage:
    return Passage(f"{paper_id}#0", paper_id, f"Paper {paper_id}", [], 2025, None, 1, 1, text, number=number)


def test_the_long_form_most_papers_give_is_the_agreed_one() -> None:
    usual = [(USUAL_GRPO, "b"), ("Group-Relative Policy Optimisation (GRPO) keeps no critic.", "c")]
    for spellings in ([(ODD_GRPO, "a"), *usual], [*usual, (ODD_GRPO, "a")]):  # whichever is read first
        assert agreed_forms(spellings)["GRPO"] == "group relative policy optimization"
    # one paper's lone spelling among several papers gives way to the glossary's; a paper alone keeps its own
    assert "GRPO" not in agreed_forms([(ODD_GRPO, "a"), ("GRPO trains the policy.", "b")])
    assert expand("GRPO", agreed_forms([(ODD_GRPO, "a"), ("GRPO trains the policy.", "b")])) == glossary()["GRPO"]
    assert agreed_forms([(ODD_GRPO, "a"), ("GRPO trains the policy.", "a")])["GRPO"] == (
        "generalized reward policy optimization"
    )
    # an acronym the glossary lacks keeps the spelling the texts give
    assert agreed_forms([("the Zonal Quirk Tracker (ZQT) runs", "a"), ("ZQT", "b")])["ZQT"] == "zonal quirk tracker"


def test_spellings_that_differ_only_in_small_words_hyphens_or_british_endings_are_one() -> None:
    assert form_key("Group-Relative Policy Optimisation") == form_key("group relative policy optimization")
    assert form_key("centralized training with decentralized execution") == form_key(
        "Centralized Training Decentralized Execution"
    )
    assert form_key("group relative policy optimization") != form_key("generalized reward policy optimization")
    assert spells_otherwise(ODD_GRPO, "GRPO", "group relative policy optimization")
    assert not spells_otherwise(USUAL_GRPO, "GRPO", "Group-Relative Policy Optimisation")
    assert not spells_otherwise("GRPO is a critic-free method.", "GRPO", "group relative policy optimization")


def test_a_definition_question_is_not_led_by_one_papers_odd_spelling(tool_use: Store) -> None:
    question = "What is GRPO?"
    answerer = ExtractiveAnswerer(tool_use.embedder, tool_use.settings.answer)
    sources = [
        _passage("a", f"{ODD_GRPO} We evaluate GRPO on video agents.", 1),
        _passage("b", f"{USUAL_GRPO} GRPO removes the value model.", 2),
        _passage("c", "With GRPO, the agent improves by 4% on seven QA benchmarks.", 3),
    ]
    lead = answerer.answer(question, question, sources).sentences[0]
    assert lead.text.startswith("In the second stage"), lead.text
    # the odd spelling still answers when it is the only sentence that says what GRPO is ...
    alone = answerer.answer(question, question, [sources[0], sources[2]]).sentences[0]
    assert "Generalized Reward Policy Optimization (GRPO)" in alone.text
    # ... and in its own paper, where it is what GRPO means
    own = answerer.answer(question, question, [sources[0], _passage("a", "GRPO trains the policy.", 2)])
    assert "Generalized Reward Policy Optimization (GRPO)" in own.sentences[0].text


def test_sources_that_spell_it_only_one_papers_way_look_up_the_usual_spelling(tool_use: Store) -> None:
    retriever = HybridRetriever(tool_use)
    odd = _passage("odd", ODD_GRPO)
    uses = [p for p in retriever.keyword_passages("GRPO", Scope(), 50) if not says_what(p.text, "GRPO")][:2]
    assert uses and all(p.paper_id != "odd" for p in uses)
    base = [odd, *uses]
    found = with_definition(retriever, "What is GRPO?", Scope(), base)
    assert found[: len(base)] == base and len(found) == len(base) + 1
    added = found[-1].text
    assert re.search(r"group[\s-]+relative\s+policy\s+optimi[sz]ation\s*\(GRPO\)", added, re.IGNORECASE), added
    # a source that says what GRPO is the usual way is enough
    assert with_definition(retriever, "What is GRPO?", Scope(), found) == found


@pytest.mark.parametrize(
    ("text", "variant"),
    [
        ("Hybrid Group Relative Policy Optimization (Hybrid GRPO) is a framework that extends Proximal Policy "
         "Optimization (PPO) and Group Relative Policy Optimization (GRPO) by adding samples.", True),
        ("To address this gap, we propose Turn-Level GRPO (TL-GRPO), a lightweight RL algorithm.", True),
        ("We adopt Group Relative Policy Optimization (GRPO), a critic-free RL algorithm.", False),
        ("We use GRPO (GRPO; Shao et al., 2024), a variant of PPO.", False),
        ("GRPO (Group Relative Policy Optimization) is a critic-free method.", False),
    ],
)  # fmt: skip
def test_a_sentence_that_names_a_variant_built_on_the_name_is_told(text: str, variant: bool) -> None:
    assert names_a_variant(text, "GRPO") is variant


def test_a_definition_is_led_by_a_sentence_about_the_name_before_one_about_a_variant(tool_use: Store) -> None:
    question = "What is GRPO?"
    answerer = ExtractiveAnswerer(tool_use.embedder, tool_use.settings.answer)
    hybrid = (
        "Hybrid Group Relative Policy Optimization (Hybrid GRPO) is a reinforcement learning framework that "
        "extends Group Relative Policy Optimization (GRPO) by sampling several actions."
    )
    sources = [_passage("a", hybrid, 1), _passage("b", f"{USUAL_GRPO} GRPO removes the value model.", 2)]
    lead = answerer.answer(question, question, sources).sentences[0]
    assert lead.text.startswith("In the second stage"), lead.text
    # the variant's sentence still leads when it is the only one that spells GRPO out
    alone = answerer.answer(question, question, [sources[0], _passage("c", "GRPO is widely used.", 2)])
    assert alone.sentences[0].text.startswith("Hybrid Group Relative"), alone.sentences[0].text


def test_sources_that_only_define_a_variant_look_up_the_name_itself(tool_use: Store) -> None:
    retriever = HybridRetriever(tool_use)
    variant = _passage("variant", "To address this gap, we propose Turn-Level GRPO (TL-GRPO), a lightweight RL method.")
    assert not says_what(variant.text, "GRPO")
    found = with_definition(retriever, "What is GRPO?", Scope(), [variant])
    # what it finds is about GRPO itself: it says what GRPO is, or at least spells it out
    assert len(found) == 2 and best_tier(found[-1].text, "GRPO") in (0, 1), found[-1].text


EXPANDS_ONLY = (
    "However, existing approaches such as Group Relative Policy Optimization (GRPO) and its variants, while effective "
    "on reasoning benchmarks, struggle with agentic tasks that require iterative decision-making."
)


@pytest.mark.parametrize(
    ("text", "tier"),
    [
        (EXPANDS_ONLY, 1),
        ("EgoVLM is fine-tuned via Group Relative Policy Optimization (GRPO), a reinforcement learning method adapted "
         "to align model outputs with human-like reasoning steps.", 0),
        ("We use Group Relative Policy Optimization (GRPO), which estimates the baseline from a group of rollouts.", 0),
        ("GRPO is a critic-free method.", 0),
        ("To optimize this workflow, we introduce multi-context GRPO, an end-to-end RL framework.", 2),
        ("We propose SC-GRPO (Self-Conditioned GRPO), which uses KL divergence as a weight on GRPO gradients.", None),
        (ODD_GRPO, 3),
        # what sets it apart from another thing says what it is
        ("Unlike DeepSeek GRPO, which eliminates the value function in favor of purely empirical reward estimation, "
         "Hybrid GRPO introduces a structured advantage computation method.", 0),
        # named bare and put to use: a paper that uses GRPO, not one that brings it in
        ("We introduce Group Relative Policy Optimization (GRPO) to jointly optimize agent policies with access to "
         "global signals during training.", 1),
    ],
)  # fmt: skip
def test_a_sentence_that_says_what_the_name_is_ranks_above_one_that_only_spells_it_out(
    text: str, tier: int | None
) -> None:
    assert definition_tier(text, "GRPO", "group relative policy optimization") == tier
    if tier in (0, 1):
        assert describes(text, "GRPO") is (tier == 0)


def test_sources_that_only_spell_it_out_look_up_one_that_says_what_it_is(tool_use: Store, tmp_path: Path) -> None:
    retriever = HybridRetriever(tool_use)
    spelt = _passage("spelt", EXPANDS_ONLY)
    # the tool-use papers only spell GRPO out: what is looked up spells it out too
    found = with_definition(retriever, "What is GRPO?", Scope(), [spelt])
    assert found == [spelt] or best_tier(found[-1].text, "GRPO") == 1
    # a paper that says what GRPO is ("... fine-tuned via Group Relative Policy Optimization (GRPO), a reinforcement
    # learning method ...") is found among the many that only spell it out, and leads the answer
    ego = next(r for r in demo_records(400) if r["id"] == "2506.03097")
    (tmp_path / "ego.jsonl").write_text(json.dumps(ego) + "\n")
    assert Ingestor(tool_use).run(arxiv_papers(tmp_path / "ego.jsonl")).added == 1
    found = with_definition(HybridRetriever(tool_use), "What is GRPO?", Scope(), [spelt])
    assert len(found) == 2 and found[-1].paper_id == "2506.03097", found[-1].text
    answer = ExtractiveAnswerer(tool_use.embedder, tool_use.settings.answer).answer(
        "What is GRPO?", "What is GRPO?", found
    )
    assert answer.sentences[0].text.startswith("EgoVLM is fine-tuned via"), answer.sentences[0].text


def test_a_new_thing_brought_in_for_a_purpose_is_introduced() -> None:
    """ "propose a ... (LBM) to leverage ...": an article before the long form brings a new thing in."""
    text = "To address these challenges, we propose a hierarchical Large autoBidding Model (LBM) to leverage LLMs."
    assert describes(text, "LBM")
