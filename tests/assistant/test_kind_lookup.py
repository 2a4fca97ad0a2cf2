"""A "which X" question about one paper whose retrieved passages name no thing of kind X: the paper's passages are
read for one that does and shares the question's words (`assistant.kind_lookup`). A question that asks what its
subject is built on ("What base model is X trained from?") wants a sentence that says so, not one naming any model."""

from __future__ import annotations

from pathlib import Path

from assistant.entities import kind_counts
from assistant.kind_lookup import _about, names_one, with_asked_kind
from assistant.question_type import classify
from assistant.retrieval import HybridRetriever
from assistant.sentence_features import names_base
from assistant.service import Assistant
from assistant.types import Passage, Scope
from ingest.uploads import ingest_pdf
from storage.store import Store
from tests.helpers.pdfs import text_pdf

QUESTION = "Which RL algorithm trains the Crawler?"
PAGES = [
    [
        "Paper Search Agents: Reading Whole Papers with Language Models",
        "We build a paper search agent made of a Crawler and a Selector that read whole papers.",
        "The Crawler issues search queries and expands citations, and the Selector reads each paper found.",
    ],
    [
        "We conduct RL training of the Crawler on a set of synthetic queries with annotated papers.",
        "Starting with a query, the Crawler generates a trajectory of search and expand actions.",
        "Training the Crawler with RL takes long because a whole trajectory must be sampled for each query.",
    ],
    [
        "The Crawler is trained in two stages: imitation first, then reinforcement.",
        "In the second stage, we apply PPO training with session-level rewards to the Crawler.",
    ],
    [
        "Shortcuts are a known failure of learned models in many fields of science.",
        "Two infamous examples are networks that read a watermark, and networks that read ImageNet photos.",
    ],
]


def _filler(topic: str) -> list[str]:
    """Lines on `topic` that make each page a passage of its own."""
    return [f"Sentence {i} of this page says more about {topic} in plain words, at length." for i in range(24)]


def _paper(store: Store, tmp_path: Path) -> str:
    topics = ("the agent's design", "the Crawler's trajectories", "the two training stages", "shortcut learning")
    pages = [page + _filler(topic) for page, topic in zip(PAGES, topics, strict=True)]
    return ingest_pdf(store, text_pdf(tmp_path / "agent.pdf", pages, title=PAGES[0][0]))


def _split(retriever: HybridRetriever, question: str, scope: Scope) -> list[Passage]:
    """The paper's best passages for `question` by BM25 that hold no answer of the asked kind; some do."""
    passages = retriever.keyword_passages(question, scope, 50)
    others = [p for p in passages if not names_one(question, p.text)]
    assert others and len(others) < len(passages), "the paper has passages with and without the answer"
    return others


def test_a_passage_naming_the_asked_kind_joins_sources_that_name_none(store: Store, tmp_path: Path) -> None:
    scope = Scope(paper_id=_paper(store, tmp_path))
    retriever = HybridRetriever(store)
    base = _split(retriever, QUESTION, scope)
    found = with_asked_kind(retriever, QUESTION, scope, base)
    assert found[: len(base)] == base and len(found) == len(base) + 1
    assert "we apply PPO training" in found[-1].text
    # sources that already name one, a question that asks for no kind, and a scope wider than one paper: as they are
    assert with_asked_kind(retriever, QUESTION, scope, found) == found
    assert with_asked_kind(retriever, "How is the Crawler trained?", scope, base) == base
    assert with_asked_kind(retriever, QUESTION, Scope(), base) == base


def test_ask_pdf_leads_with_the_name_of_the_asked_kind(store: Store, tmp_path: Path) -> None:
    scope = Scope(paper_id=_paper(store, tmp_path))
    answer = Assistant(store).ask(QUESTION, scope)
    assert not answer.abstained, answer.notes
    assert "PPO" in answer.sentences[0].text, [s.text for s in answer.sentences]


def test_a_name_of_the_kind_in_an_aside_is_about_something_else() -> None:
    question = "Which dataset was the solubility model trained on?"
    aside = "Two infamous examples are networks that read a watermark, and networks that read ImageNet photos."
    answer = "The AqSolDB solubility dataset was used to train the model, and MoleculeNet data was held out."
    assert names_one(question, aside) and not names_one(question, aside, _about(question))
    assert names_one(question, answer, _about(question))
    assert _about(question) == {"solubl", "train"}  # not the kind's word ("dataset"), nor "which"


BASE_QUESTION = "What base model is AgentX-8B trained from?"
BASE_PAGES = [
    [
        "AgentX: Training Research Agents with Rubrics",
        "AgentX-8B outperforms GPT-4o and Gemini-2.5-Pro on four long-form research benchmarks.",
        "AgentX-8B also surpasses DeepSeek-V3 and Llama-3.1-70B on short-form search benchmarks.",
    ],
    [
        "All backbone models we compare with, such as Mistral-7B and Llama-3.1-8B, share the same training data.",
        "AgentX-8B is compared with Mistral-7B and Gemma-2-9B under one search budget.",
    ],
    [
        "To instill the rubric scaffold, we fine-tune the base Qwen3-8B model on teacher trajectories.",
        "The resulting corpus teaches the agent tool use and evidence citation.",
    ],
]


def _base_paper(store: Store, tmp_path: Path) -> str:
    topics = ("the results", "the compared models", "the training")
    pages = [page + _filler(topic) for page, topic in zip(BASE_PAGES, topics, strict=True)]
    return ingest_pdf(store, text_pdf(tmp_path / "agentx.pdf", pages, title=BASE_PAGES[0][0]))


def test_a_question_asks_what_its_subject_is_built_on() -> None:
    for question in (
        BASE_QUESTION,
        "Which base language model is OpenScholar-8B trained from?",
        "Which RL algorithm does CAST build on?",
        "Which RL algorithm serves as SDAR's optimization backbone?",
        "Which pre-trained language model do the authors adapt for paraphrase generation?",
    ):
        assert classify(question).base, question
    for question in (QUESTION, "Which dataset was the solubility model trained on?", "Which benchmarks test X?"):
        assert not classify(question).base, question


def test_a_sentence_says_what_the_subject_is_built_on() -> None:
    says = [
        "To instill the rubric scaffold, we fine-tune the base Qwen3-8B model on teacher trajectories.",
        "Based on the open-source Qwen3 MoE models, AgentX-8B is trained in four stages.",
        "We train Llama 3.1 8B Instruct on the generated training data.",  # a model's size written apart
    ]
    not_says = [
        "AgentX-8B outperforms GPT-4o and Gemini-2.5-Pro on four long-form research benchmarks.",  # no derivation
        "All backbone models share the same training data, such as Mistral-7B.",  # "backbone" alone
        "A baseline adds a loss on top of the Mistral-7B model.",  # neither the subject nor its authors
        "Although AgentX-8B-SFT is distilled from Gemini-2.5-Pro, AgentX-8B-RL surpasses it.",  # a teacher
    ]
    kind = classify(BASE_QUESTION)
    for text in says:
        assert names_base(kind, BASE_QUESTION, text, kind_counts([text])), text
    for text in not_says:
        assert not names_base(kind, BASE_QUESTION, text, kind_counts([text])), text
    algorithm = "Which RL algorithm serves as SDAR's optimization backbone?"
    ours = "Our method is designed as an auxiliary objective on top of a standard GRPO loss."
    assert names_base(classify(algorithm), algorithm, ours, kind_counts([ours]))
    assert not names_base(classify(QUESTION), QUESTION, ours, kind_counts([ours]))  # not a question of a base


def test_ask_pdf_leads_with_what_the_subject_is_built_on(store: Store, tmp_path: Path) -> None:
    scope = Scope(paper_id=_base_paper(store, tmp_path))
    retriever = HybridRetriever(store)
    others = _split(retriever, BASE_QUESTION, scope)  # one passage says what AgentX-8B is built on
    assert any(names_one(QUESTION.replace("RL algorithm", "model"), p.text) for p in others)  # they name models
    found = with_asked_kind(retriever, BASE_QUESTION, scope, others)
    assert len(found) == len(others) + 1 and "the base Qwen3-8B model" in found[-1].text
    answer = Assistant(store).ask(BASE_QUESTION, scope)
    assert not answer.abstained, answer.notes
    assert "Qwen3-8B" in answer.sentences[0].text, [s.text for s in answer.sentences]
