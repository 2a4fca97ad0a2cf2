"""What a paper does leads a "how do papers do X" question over a topic; who did what, a venue line and
affiliations answer nothing."""

from __future__ import annotations

import pytest

import assistant.extractive as extractive
from assistant.question_type import QuestionType
from assistant.sentence_features import asks_how_done, credits_people, states_contribution, type_bonus
from assistant.service import Assistant
from assistant.types import Scope
from papertalk.demo import DEMO_TOPIC
from storage.store import Store

QUESTION = "How do papers assign credit to individual turns in multi-turn tool use?"


@pytest.mark.parametrize(
    ("question", "how"),
    [
        (QUESTION, True),
        ("How are rewards designed for web search agents?", True),
        ("How well does GRPO compare with PPO?", False),  # a result, not a means
        ("How is credit assignment a problem for long trajectories?", False),  # asks about the problem
        ("What is GRPO?", False),
    ],
)
def test_a_question_that_asks_how_papers_do_something(question: str, how: bool) -> None:
    assert asks_how_done(question) is how


@pytest.mark.parametrize(
    ("text", "contributes"),
    [
        ("We propose TCPO, a turn-level credit assignment method for verifier-guided multi-turn RL.", True),
        ("Specifically, we formulate credit assignment as a bipartite matching problem.", True),
        ("In this paper, we further introduce a curriculum over tasks.", True),
        ("This work trains a single agent in a self-play setting.", True),
        ("AI agents are increasingly used to solve real-world tasks.", False),
        ("However, most existing methods assign credit over coarse heuristic units.", False),
        ("We observe that rewards are sparse.", False),  # a finding, not what the paper builds
    ],
)  # fmt: skip
def test_a_sentence_that_says_what_its_paper_does(text: str, contributes: bool) -> None:
    assert states_contribution(text) is contributes


def _lead(store: Store) -> str:
    answer = Assistant(store).ask(QUESTION, Scope(topic=DEMO_TOPIC))
    assert not answer.abstained and len({p.paper_id for p in answer.sources}) >= extractive.ACROSS_PAPERS
    return answer.sentences[0].text


def test_over_a_topic_the_answer_leads_with_what_a_paper_does(tool_use: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    lead = _lead(tool_use)
    assert states_contribution(lead) and "credit assignment" in lead, lead
    monkeypatch.setattr(extractive, "CONTRIBUTION_BONUS", 0.0)
    before = _lead(tool_use)  # without the nudge, a sentence on the field's problem led
    assert not states_contribution(before), before


@pytest.mark.parametrize(
    ("text", "credits"),
    [
        ("Details of individual author contributions can be found here.", True),
        ("Kalpesh also contributed to project scoping and ideation and led the writing of the paper.", True),
        ("All authors contributed equally.", True),
        ("It has been used in research prototypes which have since contributed to research publications.", False),
        ("These features contributed to the gains.", False),
    ],
)  # fmt: skip
def test_a_sentence_that_says_who_did_what(text: str, credits: bool) -> None:
    assert credits_people(text) is credits


def test_a_first_pages_venue_line_and_affiliations_rank_as_furniture() -> None:
    venue = "Proceedings of the 17th Conference of the European Chapter of the ACL, pages 1650–1669"
    plain = QuestionType("other")
    assert type_bonus(plain, venue, "What is it?") < 0
    assert type_bonus(plain, "♠University of Massachusetts Amherst, ♢Allen Institute for AI", "Who?") < 0
    assert type_bonus(plain, "We evaluate on the proceedings of three conferences.", "What is it?") == 0
