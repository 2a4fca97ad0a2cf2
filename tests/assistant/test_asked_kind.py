"""A "which X ..." question that asks for a kind of named thing leads with a sentence naming one: "What RL algorithm
is used to train MiroThinker?" with the sentence naming GRPO, not with one about the benchmarks MiroThinker was
tested on (docs/benchmarks.md, "The kind a question asks for")."""

from __future__ import annotations

from collections import Counter

import pytest

from assistant.entities import family_kind, kind_counts, names
from assistant.extractive import ExtractiveAnswerer, _Candidate
from assistant.question_type import asked_kinds, classify
from assistant.sentence_features import KIND_BONUS, NAME_BONUS, name_bonus
from assistant.service import Assistant
from assistant.types import Passage, Scope
from ingest.pdf import read_pdf
from ingest.sentences import split_sentences
from storage.store import Store
from tests.conftest import LONGEVAL_PDF


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("What RL algorithm is used to train MiroThinker?", ("algorithm",)),
        ("Which RL algorithm trains PaSa's Crawler?", ("algorithm",)),
        ("Which alignment method works best for highlighting hints?", ("algorithm",)),
        ("Which LLM is used as the judge?", ("model",)),
        ("Which base model are PaSa's Crawler and Selector built on?", ("model",)),
        ("Which retriever and reranker models does OpenScholar use?", ("model",)),
        ("Which preference optimization and reinforcement learning algorithms train MiroThinker?", ("algorithm",)),
        ("Which datasets is LongEval evaluated on?", ("dataset", "benchmark")),
        ("Which corpora are used?", ("dataset",)),
        ("Which model sizes was SDAR evaluated on?", ()),  # the head noun is "sizes"
        ("What kind of model do they use for detection?", ()),
        ("Which baseline methods is RAPT compared against?", ()),  # a baseline is any kind of thing
        ("What applications of the corpus do the authors suggest?", ()),
        ("How does SDAR adapt during training?", ()),
    ],
)
def test_the_kind_asked_for_is_read_from_the_head_noun(question: str, kinds: tuple[str, ...]) -> None:
    assert asked_kinds(question) == kinds
    if kinds:
        assert classify(question).kinds == kinds


def test_a_sized_variant_has_its_familys_kind() -> None:
    assert family_kind("Qwen2.5-7b") == family_kind("Llama-3.1-8B-Instruct") == family_kind("gpt-4o") == "model"
    assert family_kind("GRPO") == "algorithm"
    assert family_kind("MiroThinker-v1.0-72B") is None  # nothing says what MiroThinker is
    local = kind_counts(["MiroThinker, a deep research model, is trained in three stages."])
    assert family_kind("MiroThinker", local.get("MiroThinker")) == "model"


ALGORITHM = "We employ GRPO with fully online policy updates during the third stage."
BENCHMARK = "On the BrowseComp benchmark, MiroThinker-72B reaches 47.1% accuracy."
BENCHMARK_ONLY = "On the BrowseComp benchmark, it reaches 47.1% accuracy."
UNKNOWN = "Training uses the ZephyrOpt scheduler on 64 nodes."


def test_a_name_of_the_asked_kind_is_nudged_more_and_one_of_another_kind_not_at_all() -> None:
    question = "What RL algorithm is used to train MiroThinker?"
    kind, local = classify(question), kind_counts([ALGORITHM, BENCHMARK, UNKNOWN])
    assert name_bonus(kind, question, ALGORITHM, local) == KIND_BONUS > NAME_BONUS
    assert name_bonus(kind, question, BENCHMARK_ONLY, local) == 0.0  # BrowseComp is a benchmark
    assert name_bonus(kind, question, BENCHMARK, local) == 0.0  # MiroThinker-72B is the asked thing, no answer
    assert name_bonus(kind, question, UNKNOWN, local) == NAME_BONUS  # what ZephyrOpt is, nothing says
    assert name_bonus(kind, question, "MiroThinker is trained in three stages.", local) == 0.0  # its own name
    plain = "Which tool does S2ORC use for language detection?"  # no kind asked: any new name, as before
    assert name_bonus(classify(plain), plain, "We use cld2 and FastText for this.", {}) == NAME_BONUS


def test_a_variant_of_the_asked_name_is_no_answer_to_which_model() -> None:
    """RubricEM-8B-RL and RubricEM-SFT are the paper's own model again: only Qwen3-8B answers the question."""
    question = "What base model is RubricEM-8B trained from?"
    kind = classify(question)
    variant = "RubricEM-8B-RL achieves the highest average score among non-proprietary deep research systems."
    assert name_bonus(kind, question, variant, {}) == 0.0
    assert name_bonus(kind, question, "Training starts from the RubricEM-SFT checkpoint.", {}) == 0.0
    assert name_bonus(kind, question, "We fine-tune Qwen3-8B with LLaMA-Factory.", {}) == KIND_BONUS


def _passage(number: int, text: str) -> Passage:
    return Passage(f"c{number}", "mirothinker", "MiroThinker: a deep research agent", [], 2025, None, number, number,
                   text, number=number)  # fmt: skip


def test_the_sentence_naming_the_asked_kind_leads_however_the_others_score(corpus: Store) -> None:
    """The benchmark sentences repeat the paper's name and score higher; the answer still leads with GRPO's."""
    pipeline = "MiroThinker is trained in three stages: fine-tuning, preference tuning and reinforcement learning."
    sources = [
        _passage(1, f"{BENCHMARK} MiroThinker also sets a new state of the art on the GAIA benchmark with 81.9%."),
        _passage(2, f"{pipeline} {ALGORITHM}"),
    ]
    question = "What RL algorithm is used to train MiroThinker?"
    # made-up passages have no retrieval ranks for abstention to weigh: it is left out here
    settings = corpus.settings.answer.model_copy(update={"abstain_below": 0.0, "abstain_evidence": 0.0})
    answer = ExtractiveAnswerer(corpus.embedder, settings).answer(question, question, sources)
    assert not answer.abstained, answer.notes
    assert "GRPO" in answer.sentences[0].text, [s.text for s in answer.sentences]
    assert answer.sentences[0].citations[0].page_start == 2
    other = "How does MiroThinker perform on the benchmarks?"  # no kind asked: the benchmark sentences lead
    assert "GRPO" not in ExtractiveAnswerer(corpus.embedder, settings).answer(other, other, sources).sentences[0].text


def test_ask_pdf_names_the_alignment_method_that_works_best(corpus: Store) -> None:
    """LongEval (bundled, CC BY): the method that works best is SuperPAL, stated on page 7."""
    pid = read_pdf(LONGEVAL_PDF).paper_id
    answer = Assistant(corpus).ask("Which alignment method works best for highlighting source sentences?",
                                   Scope(paper_id=pid))  # fmt: skip
    assert not answer.abstained, answer.notes
    lead = answer.sentences[0]
    assert "SuperPAL" in lead.text, [s.text for s in answer.sentences]
    assert Counter(c.paper_id for c in lead.citations) == Counter({pid: len(lead.citations)})


def test_a_lead_moved_first_is_quoted_though_it_ranks_below_the_floor(corpus: Store) -> None:
    """A sentence led with for what it says may rank below `abstain_below`: it is quoted all the same (whether to
    answer was decided before), and the sentences after it are held to the floor as before."""
    answerer = ExtractiveAnswerer(corpus.embedder, corpus.settings.answer)
    text = f"{ALGORITHM} {BENCHMARK} {UNKNOWN}"
    first, second, third = split_sentences(text)
    floor = corpus.settings.answer.abstain_below
    led = _Candidate(0, first, 0.2, score=0.2, rank=floor - 0.1)
    strong = _Candidate(0, second, 0.5, score=0.6, rank=0.7)
    weak = _Candidate(0, third, 0.1, score=0.1, rank=floor - 0.2)
    picked = answerer._select([led, strong, weak])
    assert [c.sentence.text for c in picked] == [ALGORITHM, BENCHMARK]


def test_a_model_named_by_a_word_a_hyphen_and_a_version_is_a_name_of_its_familys_kind() -> None:
    """A capitalised word with a version is a model's name ("Gemini-3-Flash", "Claude-4.5-Sonnet"), of the kind the
    abstracts give its family; a word that numbers a part ("Stage-2", "Top-5") is no name."""
    text = "In Stage-2, Gemini-3-Flash judges Top-5 answers of Claude-4.5-Sonnet and Llama-3.1-8B (Table-3)."
    assert names(text) == ["Gemini-3-Flash", "Claude-4.5-Sonnet", "Llama-3.1-8B"]
    assert family_kind("Gemini-9-Ultra") == family_kind("Claude-Opus-9.1") == "model"  # neither is in the vocabulary
    assert family_kind("Zorblax-2") is None  # a family nothing describes
    question = "Which LLM is used as the judge during RubricEM training?"
    judge = "Both phases use an LLM judge (Gemini-3-Flash) with structured JSON output."
    assert name_bonus(classify(question), question, judge, {}) == KIND_BONUS
    assert name_bonus(classify(question), question, "A privileged LLM judge scores every candidate.", {}) == 0.0


def test_the_title_read_as_a_sentence_does_not_lead(corpus: Store) -> None:
    """The title page's lines read as a sentence repeat the paper's title and would lead a "how" question on
    keywords alone; the sentence that says how leads."""
    title = "PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating Scientific Documents"
    sources = [
        Passage("c1", "papermage", title, [], 2023, None, 1, 1,
                "PaperMage: A Unified Toolkit for Processing, Representing, and", number=1),
        Passage("c2", "papermage", title, [], 2023, None, 3, 3,
                "A document is represented as layers of entities, each entity a list of spans and boxes.", number=2),
    ]  # fmt: skip
    question = "How does PaperMage represent a scientific document?"
    settings = corpus.settings.answer.model_copy(update={"abstain_below": 0.0, "abstain_evidence": 0.0})
    answer = ExtractiveAnswerer(corpus.embedder, settings).answer(question, question, sources)
    assert answer.sentences[0].text.startswith("A document is represented"), [s.text for s in answer.sentences]
