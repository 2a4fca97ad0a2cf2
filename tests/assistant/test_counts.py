"""Questions that count papers ("How many papers use GRPO?"): the count over the scope's papers, and quotes."""

from __future__ import annotations

import pytest

from assistant.counts import EXACT_CHUNKS, SAMPLE_PAPERS, Count, count_answer, count_of, counted, mentions
from assistant.service import Assistant
from assistant.types import Scope
from ingest.pdf import read_pdf
from storage.store import Store
from tests.conftest import LONGEVAL_PDF


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("How many papers use GRPO?", "GRPO"),
        ("How many papers in this topic mention reward hacking?", "reward hacking"),
        ("how many studies are about web agents", "web agents"),
        ("How many papers does the corpus contain?", None),  # asked of a paper: Ask PDF answers it
        ("How many annotators were hired?", None),
    ],
)
def test_a_question_that_counts_papers_names_what_they_mention(question: str, thing: str | None) -> None:
    assert counted(question) == thing


def test_a_name_is_matched_as_written_and_a_phrase_in_any_case() -> None:
    assert mentions("We train with GRPO-based updates.", "GRPO")
    assert not mentions("Anchor-GRPO and GRPO-OPD improve on it.", "GRPO")
    assert not mentions("grpo", "GRPO")
    assert mentions("Reward Hacking is common.", "reward hacking")


def test_the_count_is_every_paper_in_scope_whose_text_names_it(corpus: Store) -> None:
    thing = "reinforcement learning"
    by_paper: dict[str, bool] = {}
    for row in corpus.catalog.query("SELECT c.paper_id, c.text FROM chunks c JOIN papers p USING (paper_id) "
                                    "WHERE p.status = 'indexed'", ()):  # fmt: skip
        by_paper[row["paper_id"]] = by_paper.get(row["paper_id"], False) or mentions(row["text"], thing)
    expected = sum(by_paper.values())
    assert 0 < expected < len(by_paper)
    answer = Assistant(corpus).ask(f"How many papers mention {thing}?", Scope())
    lead = answer.sentences[0].text
    assert lead.startswith(f"{expected} of the {len(by_paper)} indexed papers mention “{thing}”"), lead
    quotes = answer.sentences[1:]
    assert quotes and all(mentions(q.text, thing) and q.citations for q in quotes)
    assert len({q.citations[0].paper_id for q in quotes}) == len(quotes)  # one quote per paper
    nothing = Assistant(corpus).ask("How many papers mention photosynthesis?", Scope())
    assert nothing.sentences[0].text.startswith(f"0 of the {len(by_paper)} indexed") and len(nothing.sentences) == 1


def test_asked_of_one_paper_it_is_not_a_count(corpus: Store) -> None:
    pid = read_pdf(LONGEVAL_PDF).paper_id
    answer = Assistant(corpus).ask("How many papers mention faithfulness?", Scope(paper_id=pid))
    assert not any("indexed papers mention" in s.text for s in answer.sentences)


def test_in_a_topic_the_count_names_the_topic_however_it_was_asked(corpus: Store) -> None:
    from storage.topics import slugify
    from tests.conftest import TOPIC

    answer = Assistant(corpus).ask("How many papers mention reinforcement learning?", Scope(topic=slugify(TOPIC)))
    assert f"papers in topic '{TOPIC}' mention" in answer.sentences[0].text, answer.sentences[0].text


def test_few_candidate_chunks_are_all_read_and_many_are_sampled_by_paper() -> None:
    def read(ids: list[str]) -> dict[str, str]:
        return {c: ("We train with GRPO." if int(c.split("#")[0]) % 4 == 0 else "We train with PPO.") for c in ids}

    few = {f"{i}": [f"{i}#0", f"{i}#1"] for i in range(40)}
    exact = count_of("GRPO", few, read, 100)
    assert (exact.papers, exact.candidates, exact.sampled, exact.margin) == (10, 40, 0, 0)
    many = {f"{i}": [f"{i}#0", f"{i}#1"] for i in range(EXACT_CHUNKS)}  # 2 x EXACT_CHUNKS chunks to read
    asked: list[int] = []
    estimate = count_of("GRPO", many, lambda ids: asked.append(len(ids)) or read(ids), 10_000)
    assert estimate.sampled == SAMPLE_PAPERS and asked == [2 * SAMPLE_PAPERS] and estimate.candidates == EXACT_CHUNKS
    truth = EXACT_CHUNKS // 4
    assert 0 < estimate.margin < 0.05 * EXACT_CHUNKS and abs(estimate.papers - truth) <= estimate.margin
    assert count_of("GRPO", many, read, 10_000) == estimate  # seeded: the same answer each time


def test_an_estimated_count_says_so_with_its_margin() -> None:
    count = Count("reinforcement learning", 9231, 111_867, "", candidates=9512, sampled=800, margin=194)
    lead = count_answer("How many papers use RL?", "How many papers use RL?", count, [], "extractive").sentences[0]
    assert lead.text.startswith("About 9,230 (± 194) of the 111,867 indexed papers mention “reinforcement learning”")
    assert "800 of the 9,512 papers" in lead.text
