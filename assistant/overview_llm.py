"""The generative topic overview: an OpenAI-compatible LLM writes it from numbered source abstracts.

The sources are the abstracts of the topic's most central papers and of each theme's most central
papers; the prompt (prompts/overview_system.txt, overview_user.txt) lists the themes with their sources
and asks for the overview paragraph, then one line per theme. The reply goes through the same citation
check as chat answers: numbers that name no source are removed, sentences their sources do not support
are marked.
"""

from __future__ import annotations

import re

import httpx
import openai
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.base.llms.types import ChatMessage, MessageRole

from assistant.citations import CitationChecker, answer_sentences, strip_markers
from assistant.generative import LLMUnavailable, build_llm, describe_failure, format_sources
from assistant.overview_extractive import TopicPlan, question_for
from assistant.overview_text import passage_of
from assistant.overview_types import Section
from assistant.types import Answer, Passage
from papertalk.settings import Settings
from prompts import load_prompt
from storage.catalog import Catalog

FRAMING_SOURCES = 3  # most central papers of the topic
THEME_SOURCES = 3  # most central papers of each theme
MAX_THEMES = 10
THEMES_LINE = "Main themes:"


def overview_sources(catalog: Catalog, plan: TopicPlan) -> tuple[list[Passage], dict[int, list[int]]]:
    """Numbered sources (each paper's first chunk: its abstract) and the source numbers of each theme."""
    order = plan.central[:FRAMING_SOURCES]
    for theme in plan.themes[:MAX_THEMES]:
        order += theme.central(THEME_SOURCES)
    ids = list(dict.fromkeys(order))
    papers = catalog.get_many(ids)
    sources: dict[str, Passage] = {}
    for pid in ids:
        chunks = catalog.chunks_of(pid)
        if chunks and pid in papers:
            sources[pid] = passage_of(chunks[0], papers[pid], len(sources) + 1)
    by_theme = {
        t.theme_id: [sources[p].number for p in t.central(THEME_SOURCES) if p in sources]
        for t in plan.themes[:MAX_THEMES]
    }
    return list(sources.values()), by_theme


def _themes_text(plan: TopicPlan, by_theme: dict[int, list[int]]) -> str:
    lines = []
    for theme in plan.themes[:MAX_THEMES]:
        cited = ", ".join(f"[{n}]" for n in by_theme.get(theme.theme_id, []))
        lines.append(f"- {theme.label} ({theme.size} papers): sources {cited}")
    return "\n".join(lines)


def generative_overview(
    settings: Settings, embedder: BaseEmbedding, catalog: Catalog, plan: TopicPlan
) -> tuple[Answer, list[Section]]:
    sources, by_theme = overview_sources(catalog, plan)
    user = load_prompt("overview_user").render(
        topic=plan.topic, themes=_themes_text(plan, by_theme), sources=format_sources(sources)
    )
    messages = [
        ChatMessage(role=MessageRole.SYSTEM, content=load_prompt("overview_system").render()),
        ChatMessage(role=MessageRole.USER, content=user),
    ]
    llm = build_llm(settings)
    try:
        reply = llm.chat(messages)
    except (openai.OpenAIError, httpx.HTTPError) as exc:
        raise LLMUnavailable(describe_failure(exc, settings)) from exc
    question = question_for(plan.topic)
    checker = CitationChecker(embedder, settings.answer)
    answer = checker.check(question, question, reply.message.content or "", sources, "openai")
    return answer, reply_sections(answer, plan)


def reply_sections(answer: Answer, plan: TopicPlan) -> list[Section]:
    """The overview paragraph, then one section per "- theme: ..." line (as the prompt asks)."""
    plain = strip_markers(answer.text, {p.number for p in answer.sources}).plain
    sentences = answer_sentences(plain)
    if len(sentences) != len(answer.sentences):  # a reply the checker read differently: keep it whole
        return [Section("overview", "Overview", list(range(len(answer.sentences))))]
    labels = {t.label.lower(): t.theme_id for t in plan.themes}
    sections = [Section("overview", "Overview", [])]
    for line in re.finditer(r"[^\n]+", plain):
        inside = [i for i, s in enumerate(sentences) if line.start() <= s.start < line.end()]
        text = line[0].strip()
        if text.startswith("- "):
            title = text[2:].split(":", 1)[0].strip()
            sections.append(Section("theme", title, inside, labels.get(title.lower())))
        elif text != THEMES_LINE:
            sections[-1 if sections[-1].kind == "overview" else 0].sentences += inside
    return [s for s in sections if s.sentences]
