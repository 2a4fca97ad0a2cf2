"""A question that names a paper outside its scope: said so, with that paper, not answered from other papers."""

from __future__ import annotations

from assistant.elsewhere import question_names
from assistant.focus import mentions_name
from assistant.service import Assistant
from assistant.types import Scope
from ingest.pdf import read_pdf
from storage.store import Store
from storage.topics import slugify
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF, TOPIC


def test_the_names_a_question_gives_are_read_as_written() -> None:
    assert question_names("What is S2ORC?") == ["S2ORC"]
    assert question_names("How does Search-R1's reward work?") == ["Search-R1"]
    assert question_names("What is MiroThinker-v1.0 and how is PaSa trained?") == ["MiroThinker-v1.0", "PaSa"]
    assert question_names("Which RL algorithms train LLM agents?") == []  # field acronyms name no paper
    assert question_names("How are rewards designed for web agents?") == []


def test_a_topic_question_about_a_paper_outside_the_topic_says_where_that_paper_is(corpus: Store) -> None:
    s2orc = read_pdf(S2ORC_PDF).paper_id
    topic = Scope(topic=slugify(TOPIC))
    assert s2orc not in set(corpus.topics.paper_ids(slugify(TOPIC)))
    answer = Assistant(corpus).ask("How many full texts does S2ORC contain?", topic)
    assert answer.abstained and not answer.sentences
    assert [(r.paper_id, r.name) for r in answer.elsewhere] == [(s2orc, "S2ORC")]
    assert answer.text.startswith(f"No paper in topic '{TOPIC}' mentions S2ORC"), answer.text
    assert f"({s2orc})" in answer.text and answer.elsewhere[0].title in answer.text
    assert answer.sources  # the closest passages stay listed
    # over every paper, the same question is answered from the paper itself
    everywhere = Assistant(corpus).ask("How many full texts does S2ORC contain?", Scope())
    assert not everywhere.abstained and not everywhere.elsewhere
    assert everywhere.sentences[0].citations[0].paper_id == s2orc


def test_in_a_date_range_the_answer_says_the_range(corpus: Store) -> None:
    from datetime import date

    s2orc = read_pdf(S2ORC_PDF).paper_id
    recent = Scope(since=date(2026, 1, 1))
    assert s2orc not in set(Assistant(corpus).retriever.resolve(recent).allowed)
    answer = Assistant(corpus).ask("How many full texts does S2ORC contain?", recent)
    assert [r.paper_id for r in answer.elsewhere] == [s2orc]
    assert answer.text.startswith("No paper in this scope (since 2026-01-01) mentions S2ORC"), answer.text


def test_asked_of_another_paper_it_points_to_the_named_one(corpus: Store) -> None:
    s2orc, longeval = read_pdf(S2ORC_PDF).paper_id, read_pdf(LONGEVAL_PDF).paper_id
    text = " ".join(c.text for c in corpus.catalog.chunks_of(longeval))
    assert "S2ORC" not in text
    answer = Assistant(corpus).ask("What is S2ORC?", Scope(paper_id=longeval))
    assert answer.abstained and [r.paper_id for r in answer.elsewhere] == [s2orc]
    assert answer.text.startswith("This paper does not mention S2ORC"), answer.text


def test_a_name_in_scope_or_in_no_paper_is_answered_as_before(corpus: Store) -> None:
    longeval = read_pdf(LONGEVAL_PDF).paper_id
    own = Assistant(corpus).ask("What is LongEval?", Scope(paper_id=longeval))
    assert not own.elsewhere and not own.abstained
    unknown = Assistant(corpus).ask("What is ZorbaNet?", Scope(topic=slugify(TOPIC)))
    assert not unknown.elsewhere  # no paper of the library has that name: the usual answer or abstention


def test_a_name_is_written_as_a_word_with_its_version_not_inside_a_longer_word() -> None:
    assert mentions_name("MiroThinker", "MiroThinker-v1.0-72B reaches 81.9% on GAIA.")
    assert mentions_name("PaSa", "PASA's crawler and PaSa's selector")
    assert mentions_name("Search-R1", "unlike Search-R1 v2, it ...")
    assert not mentions_name("Hera", "HeraldLight, a dual LLMs architecture")
    assert not mentions_name("GRPO", "Anchor-GRPO improves on it")
    assert not mentions_name("LEAP", "Look before you leap")  # a name in capitals, as written
    assert mentions_name("LEAP", "LEAP prunes the feedback")


def test_a_chat_follow_up_about_that_paper_is_pointed_there_too(corpus: Store) -> None:
    assistant = Assistant(corpus)
    chat = assistant.start_chat(Scope(topic=slugify(TOPIC)))
    first = assistant.ask("What is S2ORC?", chat_id=chat)
    follow = assistant.ask("How many full texts does it contain?", chat_id=chat)
    assert first.elsewhere and follow.elsewhere == first.elsewhere
    assert "S2ORC" in follow.standalone_question  # what the CLI's `papertalk ask --paper` command repeats
