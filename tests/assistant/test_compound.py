"""Questions of two parts ("What is GRPO and how do agentic papers modify it?"): split, searched part by part, and
answered with the lead sentences of each part in turn."""

from __future__ import annotations

import pytest

from assistant.compound import compared, parts
from assistant.service import Assistant
from assistant.types import Scope
from storage.store import Store


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is GRPO and how do agentic papers modify it?", ["What is GRPO?", "How do agentic papers modify GRPO?"]),
        ("What is PaSa and what are its limitations?", ["What is PaSa?", "What are PaSa's limitations?"]),
        ("How does Memex store memory, and why does it help?", ["How does Memex store memory?", "Why does it help?"]),
        # one question that has "and" in it
        ("What are the strengths and weaknesses of PPO?", ["What are the strengths and weaknesses of PPO?"]),
        ("How do PPO and GRPO differ?", ["How do PPO and GRPO differ?", "What is PPO?", "What is GRPO?"]),
        ("Which datasets and what metrics are used?", ["Which datasets and what metrics are used?"]),
        ("Compare PPO and what GRPO changes", ["Compare PPO and what GRPO changes"]),
    ],
)  # fmt: skip
def test_a_question_is_split_where_a_second_question_follows_and(question: str, expected: list[str]) -> None:
    assert parts(question) == expected


@pytest.mark.parametrize(
    ("question", "things"),
    [
        ("What is the difference between PPO and GRPO?", ("PPO", "GRPO")),
        ("How does GiGPO differ from plain GRPO for agent training?", ("GiGPO", "GRPO")),
        ("How do outcome rewards and process rewards differ?", ("outcome rewards", "process rewards")),
        ("Compare PPO with GRPO", ("PPO", "GRPO")),
        ("ReAct vs. Reflexion", ("ReAct", "Reflexion")),
        # what points back, or a question inside, is no thing compared
        ("How do they differ from each other?", None),
        ("How does it differ from PPO?", None),
        ("Compare what PPO does and how GRPO changes it", None),
        ("What is GRPO?", None),
    ],
)  # fmt: skip
def test_a_comparison_names_the_two_things_compared(question: str, things: tuple[str, str] | None) -> None:
    assert compared(question) == things


def test_a_comparison_is_asked_as_itself_then_what_each_thing_is() -> None:
    assert parts("How do outcome rewards and process rewards differ?") == [
        "How do outcome rewards and process rewards differ?", "What are outcome rewards?", "What are process rewards?"
    ]  # fmt: skip


QUESTION = (
    "Which tools are used to extract text from the PDFs and how are bibliography entries linked to papers in the "
    "corpus?"
)


def _s2orc(store: Store) -> str:
    rows = store.catalog.query("SELECT paper_id FROM papers WHERE title LIKE 'S2ORC%'", ())
    return str(rows[0]["paper_id"])


def test_each_part_of_a_question_is_answered_in_turn(corpus: Store) -> None:
    assistant = Assistant(corpus)
    answer = assistant.ask(QUESTION, Scope(paper_id=_s2orc(corpus)))
    texts = [s.text for s in answer.sentences]
    assert not answer.abstained and len(texts) <= assistant.settings.answer.max_sentences
    tools = next(i for i, t in enumerate(texts) if "GROBID" in t or "SCIENCEPARSE" in t)
    linking = next(i for i, t in enumerate(texts) if "bibliography entry" in t and "title" in t)
    assert tools < linking, texts  # the parts in the order asked
    assert "asked in 2 parts" in answer.notes[0]


def test_answered_whole_the_second_part_is_lost(corpus: Store) -> None:
    """What `answer.compound` changes: read as one question, no sentence says how entries are linked."""
    assistant = Assistant(corpus)
    assistant.settings = assistant.settings.model_copy(deep=True)
    assistant.settings.answer.compound = False
    answer = assistant.ask(QUESTION, Scope(paper_id=_s2orc(corpus)))
    assert not any("bibliography entry" in s.text and "title" in s.text for s in answer.sentences)
    assert not any("asked in" in n for n in answer.notes)


def test_a_part_the_papers_do_not_answer_is_said_so(corpus: Store) -> None:
    assistant = Assistant(corpus)
    question = "How many papers does S2ORC contain and what is the boiling point of water?"
    chunks = list(assistant.stream(question, Scope(paper_id=_s2orc(corpus))))
    answer = chunks[-1].answer
    assert answer is not None and not answer.abstained
    assert any("81.1M" in s.text for s in answer.sentences), [s.text for s in answer.sentences]
    assert answer.text.endswith('The indexed papers don\'t answer "What is the boiling point of water?"')
    assert "".join(c.text for c in chunks[:-1]) == answer.text  # streamed as shown


def test_a_comparison_quotes_what_sets_each_thing_apart(corpus: Store) -> None:
    """ "How do GROBID parses and LaTeX parses differ?": the sentence that compares them, then what the paper says of
    each; asked whole, only the comparing sentence."""
    question = "How do GROBID parses and LaTeX parses differ?"
    answer = Assistant(corpus).ask(question, Scope(paper_id=_s2orc(corpus)))
    texts = [s.text for s in answer.sentences]
    assert answer.notes[0].startswith("asked in 3 parts"), answer.notes
    assert "GROBID and LATEX parses" in texts[0], texts
    assert any("LATEX parses contain many more" in t for t in texts[1:]), texts
    whole = Assistant(corpus)
    whole.settings = whole.settings.model_copy(deep=True)
    whole.settings.answer.compound = False
    alone = [s.text for s in whole.ask(question, Scope(paper_id=_s2orc(corpus))).sentences]
    assert not any("LATEX parses contain many more" in t for t in alone), alone
