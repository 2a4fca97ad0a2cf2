"""The offline answer backend: picks the retrieved sentences that best answer the question and cites each.

No text is generated: every sentence of an answer is a sentence of a passage, quoted with its [n]. When even
the best sentence is a weak match the answer says plainly that the indexed papers don't answer the question.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.abstention import Evidence, abstains, gather
from assistant.answer_shape import arrange, compose, pieces
from assistant.asked_section import asked_section, in_section, of_section, settle
from assistant.base import AnswerChunk, Answerer
from assistant.compound import parts
from assistant.definitions import agreed_form, definition_tier
from assistant.entities import kind_counts
from assistant.focus import Focus, asks_of_named, focus, named_papers, with_acronyms
from assistant.lists import list_answer
from assistant.question_type import QuestionType, classify
from assistant.scoring import idf_weights, mix, overlap, query_weight, similarities, terms
from assistant.selection import candidates, lexical, rescore
from assistant.sentence_features import (
    RESTATES_PENALTY,
    asks_contribution,
    asks_how_done,
    introduces,
    names_asked_kind,
    names_base,
    repeats_title,
    run_in_heading,
    states_contribution,
    type_bonus,
)
from assistant.stored_sentences import StoredLookup
from assistant.types import Answer, AnswerSentence, Citation, Passage
from ingest.sentences import Sentence, split_sentences, usable
from papertalk.settings import AnswerSettings

PREFILTER = 6  # sentences scored first, what abstention weighs; embedded now when ingest stored no vector for them
PER_PASSAGE = 2  # the most of them one passage may give, so that one keyword-rich passage cannot fill the six
LEARNED_PREFILTER = 6  # sentences the learned scorer embeds: the best by its cheap features, and by keywords
NEIGHBOUR_SHARE = 0.2  # a sentence gains this share of an adjacent sentence's score above NEIGHBOUR_FLOOR:
NEIGHBOUR_FLOOR = 0.3  # evidence often runs over two sentences (chosen on bench/pdf_qa.json, docs/benchmarks.md)
KEEP_MARGIN = 1.0  # a sentence is quoted after the first when its learned score is within this of the best's
SECTION_SENTENCES = 4  # sentences of each passage of that section scored whatever their keywords
SECTION_BONUS = 0.15  # a sentence of the section a question asks for ("its limitations": its Limitations section)
# over papers of ACROSS_PAPERS or more, a sentence that says what its paper does ("We propose TCPO, a turn-level
# credit assignment method ...") for a question that asks how papers do something (docs/benchmarks.md,
# bench_topic_answers)
CONTRIBUTION_BONUS = 0.1
OWN_CONTRIBUTION_BONUS = 0.2  # ... for "What is the main contribution?", whose words say nothing of the answer
ACROSS_PAPERS = 3
NAMED_PAPER_BONUS = 0.1  # a sentence of the paper whose title names what the question asks about ("ReSeek: ...")
CONTINUED_CHARS = 700  # the longest a sentence that leads in may get with the sentence after it
# a sentence that announces what follows: "We compare against three baselines:", "... as discussed below."
_LEADS_IN = re.compile(r"(?::|\b(?:as follows|the following|below))\s*[.:]?\s*$", re.IGNORECASE)
Scorer = Literal["learned", "keyword"]
NOT_ANSWERED = "The indexed papers don't answer this question."


@dataclass
class _Candidate:
    source: int  # index into sources
    sentence: Sentence
    lexical: float
    score: float = 0.0  # 0.7 x embedding similarity + 0.3 x keyword overlap: the support, and what abstains
    vector: np.ndarray | None = None
    rank: float = 0.0  # what orders the sentences: the learned score, or `score` + `bonus` with the keyword scorer
    bonus: float = 0.0  # what the question asks for (`type_bonus`): the keyword scorer's nudge


@dataclass
class _Pool:
    """An answer's candidate sentences, the pre-filtered ones among them, and the stored vectors at hand."""

    cands: list[_Candidate]
    chosen: list[_Candidate]
    stored: dict[str, np.ndarray]
    query: str = ""  # what the sentences are scored against (`assistant.focus`)
    kinds_seen: dict[str, Counter[str]] = field(default_factory=dict)  # what the passages say each name is
    asked: str | None = None  # the section of the paper's own the question asks for (`assistant.asked_section`)

    @property
    def best(self) -> float:
        return max((c.score for c in self.chosen), default=0.0)


def _headed_sentences(sources: list[Passage]) -> list[tuple[int, Sentence, str]]:
    """Each quotable sentence of the passages with its passage's index and the run-in heading it follows, if any
    ("Training Objective." before "GRPO optimizes the policy ..."): the heading says what the sentence is about."""
    out = []
    for i, passage in enumerate(sources):
        before = ""
        for sentence in split_sentences(passage.text):
            if usable(sentence):
                out.append((i, sentence, before))
            before = sentence.text if run_in_heading(sentence.text) else ""
    return out


def _near_duplicate(a: _Candidate, b: _Candidate) -> bool:
    return a.vector is not None and b.vector is not None and float(a.vector @ b.vector) > 0.9


def _prefilter(cands: list[_Candidate]) -> list[_Candidate]:
    """The `PREFILTER` sentences worth embedding: best keyword overlap and answer-type nudge first (ties in
    retrieval order), at most `PER_PASSAGE` from one passage (docs/benchmarks.md, answer-embed)."""
    taken: Counter[int] = Counter()
    kept = []
    for cand in sorted(cands, key=lambda c: -(c.lexical + c.bonus)):
        if taken[cand.source] < PER_PASSAGE:
            taken[cand.source] += 1
            kept.append(cand)
            if len(kept) == PREFILTER:
                break
    return kept


def _section_openings(
    asked: str | None, cands: list[_Candidate], sources: list[Passage], chosen: list[_Candidate]
) -> list[_Candidate]:
    """The first `SECTION_SENTENCES` sentences of each passage of the section the question asks for, when the
    keyword pre-filter left them out: they rarely repeat the question's words ("First, the 128K context ...")."""
    if not asked:
        return []
    taken, out = {id(c) for c in chosen}, []
    for i, passage in enumerate(sources):
        if in_section(asked, passage.section, passage.text):
            mine = [c for c in cands if c.source == i and id(c) not in taken]
            out += [c for c in mine if in_section(asked, passage.section, c.sentence.text)][:SECTION_SENTENCES]
    return out


def _section_first(asked: str | None, cands: list[_Candidate], sources: list[Passage]) -> tuple[list[_Candidate], int]:
    """For a question that asks for a section of the paper's own ("What are the limitations of X?"), the sentences
    of that section first, best-ranked first, then the others: the section answers it, whatever else repeats
    the question's words. Returns them and how many are of the section (`cands` as they are and 0, else)."""
    marked = [in_section(asked, sources[c.source].section, c.sentence.text) for c in cands]
    inside = [c for c, m in zip(cands, marked, strict=True) if m]
    return inside + [c for c, m in zip(cands, marked, strict=True) if not m], len(inside)


def _with_neighbours(cands: list[_Candidate]) -> None:
    """Each scored sentence ranked by its score and nudge plus a share of the scores of the scored sentences just
    before and after it in its passage."""
    ordered = sorted(cands, key=lambda c: (c.source, c.sentence.start))
    gains = [0.0] * len(ordered)
    for i in range(len(ordered) - 1):
        if ordered[i].source == ordered[i + 1].source:
            gains[i] += NEIGHBOUR_SHARE * max(0.0, ordered[i + 1].score - NEIGHBOUR_FLOOR)
            gains[i + 1] += NEIGHBOUR_SHARE * max(0.0, ordered[i].score - NEIGHBOUR_FLOOR)
    for cand, gain in zip(ordered, gains, strict=True):
        cand.rank = cand.score + cand.bonus + gain


def _ranked(pool: _Pool) -> list[_Candidate]:
    """The sentences `ExtractiveAnswerer._rank` scores: the pre-filtered ones and those with a stored vector."""
    chosen = {id(c) for c in pool.chosen}
    return [c for c in pool.cands if id(c) in chosen or c.sentence.text in pool.stored]


def _definition_first(kind: QuestionType, cands: list[_Candidate], form: str | None = None) -> list[_Candidate]:
    """For a "what is X" question, the best-ranked sentence that says what X is (`introduces`) moved first, so
    that the answer leads with it however a sentence that only uses X scored; `cands` as they are else. One that
    says what X is comes before one that only spells it out, that before one that names a variant built on it, and
    that before one that spells the acronym out other than as the passages agree (`form`; `definition_tier`): "What
    is GRPO?" is not answered by a paper's "Generalized Reward Policy Optimization (GRPO)" while others write "Group
    Relative Policy Optimization"."""
    if kind.answer != "definition":
        return cands
    first: dict[int, int] = {}  # tier (0 best) -> the best-ranked sentence of that tier
    for i, cand in enumerate(cands):
        tier = definition_tier(cand.sentence.text, kind.subject, form)
        if tier == 0:
            return [cand, *cands[:i], *cands[i + 1 :]]
        if tier is not None:
            first.setdefault(tier, i)
    if not first:
        return cands
    i = first[min(first)]
    return [cands[i], *cands[:i], *cands[i + 1 :]]


def _asked_kind_first(
    kind: QuestionType, question: str, cands: list[_Candidate], seen: dict[str, Counter[str]]
) -> list[_Candidate]:
    """For a "which X ..." question that asks for a kind of named thing (`QuestionType.kinds`), the best-ranked
    sentence that names one the question does not give moved first: "What RL algorithm trains MiroThinker?" leads
    with the sentence naming GRPO, not with one about the benchmarks it was tested on; `cands` as they are else.
    A question that asks what its subject is built on first looks for a sentence that says so (`names_base`):
    "the base Qwen3-8B model" answers "What base model is X trained from?", not "X outperforms GPT-4o"."""
    if kind.answer != "entity" or not kind.kinds:
        return cands
    for test in (names_base, names_asked_kind):  # `names_base` holds only for a question about what X is built on
        for i, cand in enumerate(cands):
            if test(kind, question, cand.sentence.text, seen):
                return [cand, *cands[:i], *cands[i + 1 :]]
    return cands


def _continued(cands: list[_Candidate], sources: list[Passage]) -> list[_Candidate]:
    """Each sentence that leads into what follows ("We compare against three baselines:") quoted together with the
    sentence after it in its passage, which says what it announces; a sentence so taken in is not quoted again."""
    out: list[_Candidate] = []
    for cand in cands:
        text = sources[cand.source].text
        after = next((s for s in split_sentences(text) if s.start >= cand.sentence.end), None)
        if _LEADS_IN.search(cand.sentence.text) and after and after.end - cand.sentence.start <= CONTINUED_CHARS:
            joined = Sentence(text[cand.sentence.start : after.end], cand.sentence.start, after.end)
            cand = replace(cand, sentence=joined)
        out.append(cand)
    return [c for i, c in enumerate(out) if not any(_within(c, o) for j, o in enumerate(out) if j != i)]


def _within(inner: _Candidate, outer: _Candidate) -> bool:
    """`inner` is quoted whole by a longer `outer` of the same passage."""
    a, b = inner.sentence, outer.sentence
    inside = b.start <= a.start and a.end <= b.end
    return inner.source == outer.source and inside and (b.end - b.start) > (a.end - a.start)


def _part_notes(asked: list[str], answers: list[Answer]) -> list[str]:
    """What an answer of several parts notes: the parts, and each part's own first note."""
    notes = [f"asked in {len(asked)} parts: " + " / ".join(asked)]
    return notes + [f"{part!r}: {a.notes[0]}" for part, a in zip(asked, answers, strict=True) if a.notes]


_usable = usable  # the name assistant/overview_text.py imports


class ExtractiveAnswerer(Answerer):
    name = "extractive"

    def __init__(
        self,
        embedder: BaseEmbedding,
        settings: AnswerSettings,
        scorer: Scorer = "keyword",
        stored: StoredLookup | None = None,
    ) -> None:
        self.embedder = embedder
        self.settings = settings
        self.scorer = scorer  # "keyword": the keyword-prefiltered embedding score used before the learned one
        self.stored = stored  # the sentence vectors ingest stored: every sentence that has one is scored

    def answer(self, question: str, standalone: str, sources: list[Passage]) -> Answer:
        asked = parts(standalone) if self.settings.compound else [standalone]
        if len(asked) > 1:
            both = self._both(question, standalone, asked, sources)
            if both is not None:
                return both
        return self._answer_one(question, standalone, sources)

    def _both(self, question: str, standalone: str, asked: list[str], sources: list[Passage]) -> Answer | None:
        """The answer to a question of several parts (`assistant.compound.parts`): the lead sentences of each
        part's answer from the same sources (`max_sentences` shared out among the parts answered), in the parts'
        order, a sentence quoted once, and a part the sources don't answer said so after them; a part answered with a
        list after the others' quotes (`_with_list`); None when more than one part is answered with a list or none
        is answered (the question is then answered whole)."""
        answers = [self._answer_one(part, part, sources) for part in asked]
        listed = [a for a in answers if a.items]
        if all(a.abstained for a in answers) or len(listed) > 1:
            return None
        if listed:
            return self._with_list(question, standalone, answers, listed[0], _part_notes(asked, answers))
        sentences: list[AnswerSentence] = []
        for answer in answers:
            new = [s for s in answer.sentences if not any(s.text == t.text for t in sentences)]
            sentences += new[: max(1, self.settings.max_sentences // sum(not a.abstained for a in answers))]
        unanswered = [part for part, a in zip(asked, answers, strict=True) if a.abstained]
        text = compose(sentences) + "".join(f' The indexed papers don\'t answer "{part}"' for part in unanswered)
        return Answer(question, standalone, text, sentences, sources, self.name, notes=_part_notes(asked, answers))

    def _with_list(
        self, question: str, standalone: str, answers: list[Answer], listed: Answer, notes: list[str]
    ) -> Answer | None:
        """A question of two parts, one answered in sentences and one with a list ("What is GRPO and which
        benchmarks is it evaluated on?"): the other part's lead quotes, then the list's named items (a list answer's
        sentences are its item lines, so the answer's sentences are the quotes, then one line per item); None when
        the part asked in sentences is not answered (the question is then answered whole)."""
        said = next(a for a in answers if a is not listed)
        if said.abstained:
            return None
        lead = said.sentences[: max(1, self.settings.max_sentences // 2)]
        text = compose(lead) + " " + listed.text
        return replace(
            listed, question=question, standalone_question=standalone, text=text,
            sentences=[*lead, *listed.sentences], notes=notes,
        )  # fmt: skip

    def _answer_one(self, question: str, standalone: str, sources: list[Passage]) -> Answer:
        if asks_of_named(standalone, sources):  # "Which benchmarks is AgentRM evaluated on?": AgentRM's sources
            named = named_papers(standalone, sources)
            own = [p for i, p in enumerate(sources) if i in named]
            if len(own) < len(sources):
                return replace(self._answer_one(question, standalone, own), sources=sources)
        pool = self._pool(standalone, sources)  # abstention is calibrated on the keyword score
        best = pool.best
        evidence = gather(standalone, sources, best)
        # a sentence that says what the asked-about X is answers "what is X", however the rest scores
        kind = classify(standalone) if self.settings.definitions else QuestionType("other")
        defined = kind.answer == "definition" and any(introduces(c.sentence.text, kind.subject) for c in _ranked(pool))
        # a section of the paper's own that the question asks for ("its limitations") answers it
        defined = defined or bool(of_section(pool.asked, sources))
        if not pool.cands or (
            not defined and abstains(evidence, self.settings.abstain_below, self.settings.abstain_evidence)
        ):
            return self._abstain(question, standalone, sources, evidence)
        listed = list_answer(question, standalone, sources, self.name)
        if listed is not None:
            return listed
        found = self._rank(pool) if self.scorer == "keyword" else self._learned(standalone, sources, pool)
        defined_first = _definition_first(
            kind, found, agreed_form(kind.subject, sources) if kind.answer == "definition" else None
        )
        led = _asked_kind_first(kind, standalone, defined_first, pool.kinds_seen)
        led, inside = _section_first(pool.asked, led, sources)
        picked = _continued(self._select(led, taken=inside), sources)
        if not picked:
            return self._abstain(question, standalone, sources, evidence)
        papers = [p.paper_id for p in sources]
        sentences = [self._cite(c, sources) for c in arrange(standalone, picked, papers)]
        text = compose(sentences)
        return Answer(
            question, standalone, text, sentences, sources, self.name, notes=[f"best sentence score {best:.2f}"]
        )

    def stream(self, question: str, standalone: str, sources: list[Passage]) -> Iterator[AnswerChunk]:
        """The answer's text one sentence at a time, as `compose` writes it, then the `Answer`."""
        answer = self.answer(question, standalone, sources)
        if answer.items:  # a list answer: one named item a line, as every answerer streams it
            yield from super().stream_answer(answer)
            return
        said = pieces(answer.sentences) if answer.sentences else [answer.text]
        rest = answer.text[len("".join(said)) :]  # what follows the quotes: a part the papers don't answer
        for piece in [*said, rest] if rest else said:
            yield AnswerChunk(text=piece)
        yield AnswerChunk(answer=answer)

    def evidence(self, standalone: str, sources: list[Passage]) -> Evidence:
        """What abstention weighs for this question and these sources (`assistant.abstention`)."""
        return gather(standalone, sources, self._pool(standalone, sources).best)

    def _score(self, query: str, sources: list[Passage]) -> tuple[list[_Candidate], float]:
        """Candidates scored, best first, and the best score among the `PREFILTER` sentences: what abstention
        weighs, the same whether or not the other sentences have stored vectors to be scored with."""
        pool = self._pool(query, sources)
        return self._rank(pool), pool.best

    def _pool(self, question: str, sources: list[Passage]) -> _Pool:
        """Every usable sentence with its keyword overlap and answer-type nudge; the `PREFILTER` ones scored."""
        headed = _headed_sentences(sources)
        pool = [(i, s) for i, s, _ in headed]
        if not pool:
            return _Pool([], [], {})
        seen = focus(question, sources) if self.settings.focus else Focus(question)
        # a sentence's terms with those of the run-in heading it follows: what the glued heading gave it before
        # cleanup split the two (docs/benchmarks.md, "A sentence reads its run-in heading")
        own_terms, heading_terms = terms([s.text for _, s in pool]), terms([h for *_, h in headed])
        pool_terms = [t | h for t, h in zip(own_terms, heading_terms, strict=True)]
        if seen.long_forms:
            own = dict(zip(seen.long_forms, terms(list(seen.long_forms)), strict=True))
            pool_terms = [with_acronyms(t, s.text, seen, own) for (_, s), t in zip(pool, pool_terms, strict=True)]
        idf = idf_weights(pool_terms)
        q_terms = terms([seen.text])[0]
        kind, total = classify(question), query_weight(q_terms, idf)
        local = kind_counts([p.text for p in sources]) if kind.kinds else {}
        asked = settle(asked_section(question), (p.section for p in sources))
        cands = [
            _Candidate(i, s, overlap(q_terms, t, idf, total), bonus=type_bonus(kind, s.text, question, local))
            for (i, s), t in zip(pool, pool_terms, strict=True)
        ]
        named = named_papers(question, sources)
        across = len({p.paper_id for p in sources}) >= ACROSS_PAPERS and asks_how_done(question)
        # "What is the main contribution?": what the paper does, whatever the question's words ("paper") match
        contribution = OWN_CONTRIBUTION_BONUS if asks_contribution(question) else CONTRIBUTION_BONUS if across else 0.0
        for cand in cands:  # "What are the limitations of X?": its Limitations section's sentences
            if in_section(asked, sources[cand.source].section, cand.sentence.text):
                cand.bonus += SECTION_BONUS
            if repeats_title(cand.sentence.text, sources[cand.source].title):
                cand.bonus -= RESTATES_PENALTY
            if cand.source in named:
                cand.bonus += NAMED_PAPER_BONUS
            if contribution and states_contribution(cand.sentence.text):  # "How do papers assign credit to turns?"
                cand.bonus += contribution
        stored = self.stored(sources) if self.stored else {}
        chosen = _prefilter(cands)
        chosen += _section_openings(asked, cands, sources, chosen)
        scored = _Pool(cands, chosen, stored, seen.text, local, asked)
        self._embed(seen.text, scored.chosen, scored.stored)
        return scored

    def _rank(self, pool: _Pool) -> list[_Candidate]:
        """The pre-filtered sentences and every other one with a stored vector, scored, best first (a list
        answer needs none of this: it is done after the list is tried)."""
        chosen = {id(c) for c in pool.chosen}
        rest = [c for c in _ranked(pool) if id(c) not in chosen]
        self._embed(pool.query, rest, pool.stored)
        scored = pool.chosen + rest
        _with_neighbours(scored)
        return sorted(scored, key=lambda c: -c.rank)

    def _embed(self, query: str, cands: list[_Candidate], stored: dict[str, np.ndarray]) -> None:
        if not cands:
            return
        texts = [c.sentence.text for c in cands]
        for cand, sim, vec in zip(cands, *self._similarities(query, texts, stored), strict=True):
            cand.score = float(mix(float(sim), cand.lexical, self.settings.semantic_weight))
            cand.vector = vec
            cand.rank = cand.score + cand.bonus

    def _similarities(
        self, query: str, texts: list[str], stored: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Cosines of `texts` to the question and their unit vectors: stored ones read, the others embedded now."""
        fresh = [t for t in texts if t not in stored]
        if len(fresh) == len(texts):
            return similarities(self.embedder, query, fresh)
        made = iter(similarities(self.embedder, query, fresh)[1] if fresh else ())
        vectors = np.array([stored[t] if t in stored else next(made) for t in texts])
        return vectors @ np.asarray(self.embedder.get_query_embedding(query), dtype=np.float32), vectors

    def _learned(self, query: str, sources: list[Passage], pool: _Pool) -> list[_Candidate]:
        """Sentences ordered by the learned scorer (`assistant.selection`), each with its support score."""
        _, found = candidates(query, sources, usable)
        by_keywords = sorted(found, key=lambda c: -(lexical(c) + 0.3 / (1 + c.source)))[:LEARNED_PREFILTER]
        stored = pool.stored
        with_vectors = [c for c in found if c.sentence.text in stored]
        top = list({id(c): c for c in found[:LEARNED_PREFILTER] + by_keywords + with_vectors}.values())
        if not top:
            return []
        sims, vectors = self._similarities(query, [c.sentence.text for c in top], stored)
        ranked = rescore(top, [float(s) for s in sims], vectors, self.settings.semantic_weight)
        return [_Candidate(c.source, c.sentence, lexical(c), c.support, c.vector, c.score) for c in ranked]

    def _select(self, cands: list[_Candidate], taken: int = 0) -> list[_Candidate]:
        """Greedy: best first, skipping near-duplicates, nudging towards papers not yet quoted. The first is always
        taken (whether to answer at all was decided before): a sentence moved first for what it says (a definition,
        a name of the asked kind) may rank below the floor the others are held to; so may the first `taken` (the
        sentences of a section the question asks for: "First, ...", "Second, ..." state its limitations)."""
        picked: list[_Candidate] = []
        if self.scorer == "keyword":
            floor = max(self.settings.abstain_below, cands[0].rank * 0.8) if cands else 0.0
        else:
            floor = cands[0].rank - KEEP_MARGIN if cands else 0.0
        for i, cand in enumerate(cands):
            held = i >= max(1, taken)  # held to the floor, and to the support a quote needs
            if len(picked) >= self.settings.max_sentences or (picked and held and cand.rank < floor):
                break
            weak = bool(picked) and held and cand.score < self.settings.abstain_below
            if weak or any(_near_duplicate(cand, p) for p in picked):
                continue
            picked.append(cand)
        return picked

    def _cite(self, cand: _Candidate, sources: list[Passage]) -> AnswerSentence:
        passage = sources[cand.source]
        first, last = passage.pages_of(cand.sentence.start, cand.sentence.end)
        citation = Citation(
            number=passage.number,
            chunk_id=passage.chunk_id,
            paper_id=passage.paper_id,
            page_start=first,
            page_end=last,
            span_start=cand.sentence.start,
            span_end=cand.sentence.end,
            quote=cand.sentence.text,
            support=round(cand.score, 4),
            section=passage.section,
        )
        return AnswerSentence(
            text=" ".join(cand.sentence.text.split()), citations=[citation], support=round(cand.score, 4)
        )

    def _abstain(self, question: str, standalone: str, sources: list[Passage], evidence: Evidence) -> Answer:
        text = NOT_ANSWERED
        if sources:
            text += " The closest passages are listed below as sources; they may still be useful to read."
        return Answer(
            question,
            standalone,
            text,
            [],
            sources,
            self.name,
            abstained=True,
            notes=[
                f"abstained: {evidence.describe()}; chance the passages answer {evidence.probability():.2f} "
                f"(abstains below {self.settings.abstain_evidence:.2f}, or a best sentence below "
                f"{self.settings.abstain_below:.2f})"
            ],
        )
