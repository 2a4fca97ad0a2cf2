"""Chats over the real corpus: follow-ups stay on their question, and questions that stand alone are
answered exactly as when asked alone. Standalone questions are read back from the stored chat turns."""

from __future__ import annotations

import pytest

from assistant.followups import MAX_SUBJECT_WORDS
from assistant.service import Assistant
from assistant.types import Answer, Scope
from ingest.pdf import read_pdf
from papertalk.errors import InvalidQuestion, NotFound, NothingIndexed
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF


def cited_papers(answer: Answer) -> set[str]:
    return {c.paper_id for s in answer.sentences for c in s.citations}


def same_answer(a: Answer, b: Answer) -> bool:
    def key(x: Answer) -> tuple[str, bool, list[str]]:
        return x.text, x.abstained, [p.chunk_id for p in x.sources]

    return key(a) == key(b)


@pytest.mark.parametrize("off_topic", ["What is the boiling point of water?", "Who won the 1998 World Cup?"])
def test_six_turn_chat_stays_bounded_and_off_topic_turn_is_answered_as_alone(corpus: Store, off_topic: str) -> None:
    assistant = Assistant(corpus)
    questions = [
        "What is the S2ORC corpus?",
        "How many papers does it contain?",
        "Which fields of study do its papers cover?",
        "What guidelines does LongEval give for human evaluation of faithfulness?",
        off_topic,
        "What is PaSa?",
    ]
    chat_id = assistant.start_chat(Scope())
    answers = [assistant.ask(q, chat_id=chat_id) for q in questions]

    turns = corpus.chats.turns(chat_id)
    assert [t.question for t in turns] == questions
    for turn in turns:
        assert len(turn.standalone.split()) <= len(turn.question.split()) + MAX_SUBJECT_WORDS, turn.standalone
    assert [t.standalone == t.question for t in turns] == [True, False, False, True, True, True]

    s2orc = read_pdf(S2ORC_PDF).paper_id
    assert cited_papers(answers[1]) == {s2orc} and cited_papers(answers[2]) == {s2orc}
    assert cited_papers(answers[3]) == {read_pdf(LONGEVAL_PDF).paper_id}
    fifth, sixth = answers[4], answers[5]
    assert fifth.abstained and same_answer(fifth, assistant.ask(off_topic))
    assert not sixth.abstained and same_answer(sixth, assistant.ask("What is PaSa?"))
    assert {"2501.10120"} == cited_papers(sixth)


def test_they_follow_up_finds_the_subjects_papers(corpus: Store) -> None:
    assistant = Assistant(corpus)
    chat_id = assistant.start_chat(Scope())
    first = assistant.ask("What are GUI agents?", chat_id=chat_id)
    follow = assistant.ask("How do they collect trajectories?", chat_id=chat_id)
    assert follow.standalone_question == "How do GUI agents collect trajectories?"
    assert not follow.abstained and cited_papers(follow)
    titles = {corpus.catalog.get(p).title for p in cited_papers(follow)}  # type: ignore[union-attr]
    assert all("GUI" in t for t in titles), titles
    assert cited_papers(follow) & cited_papers(first)


def test_this_paper_follow_up_stays_in_the_cited_paper(corpus: Store) -> None:
    assistant = Assistant(corpus)
    chat_id = assistant.start_chat(Scope())
    first = assistant.ask("What is LongEval?", chat_id=chat_id)
    longeval = read_pdf(LONGEVAL_PDF).paper_id
    assert cited_papers(first) == {longeval}
    follow = assistant.ask("What does this paper recommend for annotating faithfulness?", chat_id=chat_id)
    assert follow.standalone_question == "What does this paper (LONGEVAL) recommend for annotating faithfulness?"
    assert not follow.abstained and cited_papers(follow) == {longeval}


def test_asked_of_one_paper_a_part_of_it_is_asked_of_the_paper(corpus: Store) -> None:
    """ "What are the limitations?" in an Ask PDF chat is the paper's, not the last question's subject's."""
    assistant = Assistant(corpus)
    chat_id = assistant.start_chat(Scope(paper_id=read_pdf(LONGEVAL_PDF).paper_id))
    assistant.ask("How are the summaries split into units?", chat_id=chat_id)
    follow = assistant.ask("What are the limitations?", chat_id=chat_id)
    assert follow.standalone_question == "What are the limitations?"
    why = assistant.ask("Why?", chat_id=chat_id)  # names no part of the paper: it still borrows the subject
    assert why.standalone_question != "Why?"
    across = Assistant(corpus)  # over many papers, the subject is still borrowed
    chat_id = across.start_chat(Scope())
    across.ask("What is LongEval?", chat_id=chat_id)
    assert across.ask("What are the limitations?", chat_id=chat_id).standalone_question != "What are the limitations?"


def test_a_new_chat_forgets_the_subject(corpus: Store) -> None:
    assistant = Assistant(corpus)
    first_chat = assistant.start_chat(Scope())
    assistant.ask("What is the S2ORC corpus?", chat_id=first_chat)
    fresh = assistant.ask("How many papers does it contain?", chat_id=assistant.start_chat(Scope()))
    assert fresh.standalone_question == "How many papers does it contain?"


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question_is_refused(corpus: Store, question: str) -> None:
    assistant = Assistant(corpus)
    with pytest.raises(InvalidQuestion, match="the question is empty"):
        assistant.ask(question)
    with pytest.raises(InvalidQuestion):
        next(assistant.stream(question))


def test_an_empty_store_says_how_to_add_papers(store: Store) -> None:
    assistant = Assistant(store)
    with pytest.raises(NothingIndexed, match=r"nothing is indexed yet.*papertalk demo --load-only.*papertalk ingest"):
        assistant.ask("What is S2ORC?")
    with pytest.raises(NothingIndexed):
        assistant.start_chat(Scope())


def test_a_chat_in_an_unknown_scope_is_refused_before_it_starts(corpus: Store) -> None:
    assistant = Assistant(corpus)
    before = len(corpus.chats.recent(1000))
    with pytest.raises(NotFound, match="no topic 'Unknown'"):
        assistant.start_chat(Scope(topic="Unknown"))
    with pytest.raises(NotFound, match="is not indexed"):
        assistant.start_chat(Scope(paper_id="0000.00000"))
    assert len(corpus.chats.recent(1000)) == before
