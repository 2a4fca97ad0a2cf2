"""A "which X" question about one paper whose retrieved passages name no thing of kind X: the paper's passages are
read for one that does and shares the question's words (`assistant.kind_lookup`)."""

from __future__ import annotations

from pathlib import Path

from assistant.kind_lookup import _about, names_one, with_asked_kind
from assistant.retrieval import HybridRetriever
from assistant.service import Assistant
from assistant.types import Scope
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


def test_a_passage_naming_the_asked_kind_joins_sources_that_name_none(store: Store, tmp_path: Path) -> None:
    scope = Scope(paper_id=_paper(store, tmp_path))
    retriever = HybridRetriever(store)
    passages = retriever.keyword_passages(QUESTION, scope, 50)
    base = [p for p in passages if not names_one(QUESTION, p.text)]
    assert base and len(base) < len(passages), "the paper has passages with and without the algorithm's name"
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
