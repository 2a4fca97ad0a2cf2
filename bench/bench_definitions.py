"""Definition questions over the demo corpus: "What is X?" answered with and without the definition lookup.

The gold is the paper that introduces X: a demo paper whose title starts with the name ("Search-R1: Training
LLMs to Reason ...") introduces that name, and no other demo title starts with it. Every such name is asked as
"What is X?" over the whole demo corpus (2,212 abstracts and two PDFs, as `papertalk demo` loads it), offline,
twice in the same run: `answer.definitions` off (retrieval's top_k passages, the answer as ranked) and on (the
default: a passage that says what X is looked up by name when none of the sources does, and the answer led by
that sentence; assistant/definitions.py). Questions on things the corpus does not hold ("What is
photosynthesis?") must still abstain.

Measured per run: the answer's first citation is the introducing paper; that paper is among the sources; the
answer abstained; the lead sentence says what X is by the answerer's own test (`introduces`: reported, not
the gold); milliseconds per question (retrieval and answer). The nudge for defining sentences (its name read
as a word, and spelt-out acronyms counted) is the same in both runs.

Then the acronyms the demo spells out in more than one way ("Group Relative Policy Optimization (GRPO)" in most
papers, "Generalized Reward Policy Optimization (GRPO)" in one), each asked as "What is X?" over the whole
corpus, twice in the same run: with each acronym's long form taken as the sources spell it first (as before
`assistant.acronyms.agreed_forms`) and as shipped (the spelling most of the sources' papers give, one paper's own
spelling not outweighing the glossary's). Gold: the spelling most demo papers give. Measured: the lead sentence
spells X out that way; spells it out otherwise; says what X is (`introduces`); the answer abstained.

    python -m bench.bench_definitions
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import re
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import assistant.definitions as definitions_module
import assistant.extractive as extractive_module
import assistant.focus as focus_module
import assistant.service as service
from assistant.acronyms import definitions, form_key, glossary, key
from assistant.definitions import with_definition
from assistant.sentence_features import introduces
from assistant.service import Assistant
from assistant.types import Scope
from bench.common import ROOT, add_common_args, markdown_table, percentile, publish, quiet_logs
from ingest.demo import load_demo_corpus
from papertalk.demo import DEMO_METADATA
from papertalk.settings import Settings
from storage.store import Store

MODULE = "bench.bench_definitions"
DATA = ROOT / "bench" / ".cache" / "definitions" / "data"
# A title that starts with a name: capitals or digits after its first letter ("Search-R1", "AgentPRM", "ReMA").
_TITLED = re.compile(r"^\s*([A-Z][A-Za-z0-9]*(?:[A-Z0-9\-][A-Za-z0-9\-.]*)?)\s*:\s")
OFF_TOPIC = (
    "photosynthesis", "the Krebs cycle", "plate tectonics", "a sonnet", "the Doppler effect", "osmosis", "a haiku",
    "the Higgs boson", "a mortgage", "baroque music", "a tsunami", "mitosis", "the Magna Carta", "a supernova",
    "cubism", "an isotope", "the gold standard in economics", "a fugue", "the ozone layer", "a sedimentary rock",
)  # fmt: skip


@dataclass(frozen=True)
class Case:
    name: str
    gold: str  # paper id of the demo paper titled with the name


def cases(path: Path = DEMO_METADATA) -> list[Case]:
    """One case per name that exactly one demo title starts with."""
    by_name: dict[str, list[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            m = _TITLED.match(" ".join(record["title"].split()))
            if m and re.search(r"[A-Z].*[A-Z]|\d", m.group(1)[1:]):
                by_name.setdefault(m.group(1).rstrip(".-"), []).append(str(record["id"]))
    return [Case(name, ids[0]) for name, ids in sorted(by_name.items()) if len(ids) == 1]


@dataclass
class Run:
    first_cited: int = 0
    in_sources: int = 0
    abstained: int = 0
    lead_introduces: int = 0
    off_topic_abstained: int = 0
    ms: list[float] | None = None
    lookup_ms: list[float] = field(default_factory=list)  # the lookup alone, on the questions it ran for


def ask_all(store: Store, definitions: bool, named: Sequence[Case]) -> Run:
    settings = store.settings
    assistant = Assistant(store)
    assistant.settings = settings.model_copy(
        update={"answer": settings.answer.model_copy(update={"definitions": definitions})}
    )
    run, times = Run(), []

    def timed(*args: Any) -> Any:
        start = time.perf_counter()
        out = with_definition(*args)
        run.lookup_ms.append(1000 * (time.perf_counter() - start))
        return out

    with mock.patch.object(service, "with_definition", timed):
        _ask(assistant, named, run, times)
    return run


def _ask(assistant: Assistant, named: Sequence[Case], run: Run, times: list[float]) -> None:
    for case in named:
        start = time.perf_counter()
        answer = assistant.ask(f"What is {case.name}?", Scope())
        times.append(1000 * (time.perf_counter() - start))
        run.in_sources += any(p.paper_id == case.gold for p in answer.sources)
        if answer.abstained or not answer.sentences:
            run.abstained += 1
            continue
        lead = answer.sentences[0]
        cited = lead.citations[0].paper_id if lead.citations else ""
        run.first_cited += cited == case.gold
        run.lead_introduces += introduces(lead.text, case.name)
    for thing in OFF_TOPIC:
        run.off_topic_abstained += assistant.ask(f"What is {thing}?", Scope()).abstained
    run.ms = times


@dataclass
class Spelled:
    as_most: int = 0  # the lead sentence spells the acronym out as most demo papers do
    otherwise: int = 0  # ... as something else
    introduces: int = 0
    abstained: int = 0


def spelled_several_ways(store: Store, least: int = 2) -> dict[str, str]:
    """The glossary's acronyms that the store's chunks spell out at least `least` times in more than one way,
    each with the spelling (`form_key`) most of its papers give."""
    papers: dict[str, dict[str, set[str]]] = {}
    with sqlite3.connect(store.settings.catalog_path) as db:
        for paper, text in db.execute("SELECT paper_id, text FROM chunks"):
            for acronym, form in definitions(" ".join(text.split())):
                papers.setdefault(acronym, {}).setdefault(form_key(form), set()).add(paper)
    known = glossary()
    return {
        acronym: max(forms, key=lambda f: len(forms[f]))
        for acronym, forms in sorted(papers.items())
        if acronym in known and len(forms) > 1 and sum(len(p) for p in forms.values()) >= least
    }


def _first_read(spellings: Any) -> dict[str, str]:
    """Each acronym's long form as the texts spell it first: what the answerer read before `agreed_forms`."""
    out: dict[str, str] = {}
    for text, _paper in spellings:
        for acronym, form in definitions(" ".join(text.split())):
            out.setdefault(acronym, form)
    return out


def ask_acronyms(store: Store, most: dict[str, str], agreed: bool) -> Spelled:
    assistant, run = Assistant(store), Spelled()
    with contextlib.ExitStack() as stack:
        if not agreed:
            stack.enter_context(mock.patch.object(focus_module, "agreed_forms", _first_read))
            for module in (definitions_module, extractive_module):
                stack.enter_context(mock.patch.object(module, "agreed_form", lambda subject, sources: None))
        for acronym, form in most.items():
            answer = assistant.ask(f"What is {acronym}?", Scope())
            if answer.abstained or not answer.sentences:
                run.abstained += 1
                continue
            lead = answer.sentences[0].text
            spelt = {form_key(f) for a, f in definitions(" ".join(lead.split())) if a == key(acronym)}
            run.as_most += form in spelt
            run.otherwise += bool(spelt - {form})
            run.introduces += introduces(lead, acronym)
    return run


def acronym_body(most: dict[str, str], runs: dict[str, Spelled]) -> str:
    n = len(most)
    rows = [
        [label, _rate(r.as_most, n), _rate(r.otherwise, n), _rate(r.introduces, n), _rate(r.abstained, n)]
        for label, r in runs.items()
    ]
    table = markdown_table(
        ["long form of X taken as", "lead spells X as most papers do", "lead spells X otherwise",
         "lead says what X is (introduces)", "abstained"],
        rows,
    )  # fmt: skip
    return (
        f"{n} acronyms of the glossary that the demo's passages spell out in more than one way (at least twice in "
        f'all), each asked as "What is X?" over the whole demo corpus: {", ".join(most)}.\n\n{table}\n'
    )


def _rate(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.0f}%)"


def body(named: Sequence[Case], runs: dict[str, Run]) -> str:
    n, off = len(named), len(OFF_TOPIC)
    rows = [
        [label, _rate(r.first_cited, n), _rate(r.in_sources, n), _rate(r.lead_introduces, n), _rate(r.abstained, n),
         _rate(r.off_topic_abstained, off), percentile(r.ms or [0.0], 50), percentile(r.ms or [0.0], 95),
         f"{percentile(r.lookup_ms, 50):.1f} / {percentile(r.lookup_ms, 95):.1f}" if r.lookup_ms else "-"]
        for label, r in runs.items()
    ]  # fmt: skip
    table = markdown_table(
        ["answer.definitions", "first citation: the introducing paper", "introducing paper among the sources",
         "lead says what X is (introduces)", "abstained", "off-topic abstained", "p50 ms", "p95 ms",
         "lookup p50 / p95 ms"],
        rows,
        digits=1,
    )  # fmt: skip
    return (
        f'{n} names, each the start of exactly one demo paper\'s title ("Search-R1: ..."), asked as "What is X?" '
        f"over the whole demo corpus (extractive backend, top_k {Settings().retrieval.top_k}); {off} off-topic "
        '"What is ...?" questions ("photosynthesis", "a sonnet", ...) that should abstain. Gold: the titled '
        "paper. Both runs in one process on one store; the nudge for defining sentences is the same in both. "
        "p50 / p95 ms: the whole question (retrieval and answer); lookup: `with_definition` alone (it reads the "
        "sources, and only when none says what X is searches BM25 for X and reads up to 100 passages)."
        f"\n\n{table}\n"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description='"What is X?" over the demo corpus, with and without the lookup')
    parser.add_argument("--limit", type=int, default=0, help="ask the first N names only (0: all)")
    add_common_args(parser)
    args = parser.parse_args(argv)
    named = cases()
    named = named[: args.limit] if args.limit else named
    with quiet_logs():
        store = Store(Settings(data_dir=DATA))
        load_demo_corpus(store)
        Assistant(store).ask("What is a warm-up question?", Scope())  # model and indexes loaded before timing
        runs = {"off": ask_all(store, False, named), "on (default)": ask_all(store, True, named)}
        most = spelled_several_ways(store)
        spelt = {
            "the sources' first spelling": ask_acronyms(store, most, agreed=False),
            "the spelling most of the sources' papers give (default)": ask_acronyms(store, most, agreed=True),
        }
    text = body(named, runs) + "\n" + acronym_body(most, spelt)
    publish(args, "definitions", 'Definition questions ("What is X?") over the demo corpus', MODULE, text)


if __name__ == "__main__":
    main()
