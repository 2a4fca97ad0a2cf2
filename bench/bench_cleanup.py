"""PDF text cleanup measured: how many answer quotes carry PDF debris, with the cleanup off and on.

Three sets, each indexed twice in the same run (`chunking.clean_text` false, then true) and every question
asked of its own paper with the extractive backend (abstention off, so every question yields quotes):
1. the bundled PDFs with the questions of bench/pdf_qa.json;
2. the QASPER slice (shared/data/eval/qasper; each section is a page that starts with its heading);
3. the shared PDFs (shared/data/pdfs) with the questions in `SHARED_QUESTIONS`: the issue's questions for
   MiroThinker and PaSa, and five generic questions asked of every other paper.

A quote (the cited span, as it stands in its passage) carries debris when it holds
- a heading: a numbered heading of its paper ("3.3 Context Management") anywhere in it, or an unnumbered
  one ("Introduction") as a line of its own or glued to the start of the quote; headings are QASPER's
  section names, and for PDFs the ones `ingest.sections` finds in the text as extracted;
- a running header or footer: a line that is one of the paper's running lines (`ingest.cleanup.running_keys`
  over the text as extracted), a bare page number line, or the arXiv stamp;
- a glued word: an alphabetic token of 13+ letters, not a known word, that splits into known words
  (`ingest.wordsplit`).
Evidence quoted and evidence recall@5 (bench/qa_harness.py) are shown alongside, to see that answers did
not get worse. A second table counts, over every quotable body sentence of the chunks of the readable shared
and bundled PDFs, the sentences that hold a footnote (a line opening with a note's mark glued to its text,
"2We exclude ...") and those that end without a full stop (cut at a page break or a figure, or not prose).
It also compares pypdf with pypdfium2 on the shared PDFs (when it is installed; `--no-parsers` skips it).

    nice -n 10 python -m bench.bench_cleanup
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_qasper import load_qasper, qasper_dir
from bench.common import ROOT, add_common_args, markdown_table, pdf_folder, publish, quiet_logs
from bench.eval_data import pdf_qa
from bench.qa_harness import Outcome, Question, ask_all, evidence_recall, index_papers, open_store, quotes_evidence
from ingest.chunking import Chunker
from ingest.cleanup import clean_pages, running_keys
from ingest.pdf import read_pdf
from ingest.sections import SectionTracker
from ingest.sentences import split_sentences, usable
from ingest.wordsplit import split_mixed, vocabulary
from papertalk.settings import ChunkSettings, Settings
from storage.records import Paper

MODULE = "bench.bench_cleanup"
CACHE = ROOT / "bench" / ".cache" / "cleanup"
GLUED_MIN = 13
GENERIC = (
    "What problem does this paper address?",
    "What method does the paper propose?",
    "Which datasets or benchmarks are used for evaluation?",
    "What are the main results?",
    "What are the limitations of the approach?",
)
SHARED_QUESTIONS = {
    "2025-11-18-mirothinker.pdf": (
        "What RL algorithm is used to train MiroThinker?",
        "What is MiroThinker's reward function?",
        "How many tool calls can MiroThinker perform per task?",
    ),
    "pasa.pdf": (
        "Which RL algorithm trains PaSa's Crawler?",
        "What is the Crawler's reward?",
        "What is PaSa?",
    ),
}
_WORD = re.compile(rf"[A-Za-z]{{{GLUED_MIN},}}")
_STAMP = re.compile(r"arXiv:\s*\d{4}\.\d{4,5}")
_PAGE_LINE = re.compile(r"\d{1,4}")
_NOTE_LINE = re.compile(r"(?:^|\n)\s*(?:\d{1,2}(?=[A-Z][a-z]|https?:|www\.)|[*†‡]\s?(?=[A-Z]))")
_FULL_STOP = re.compile(r"[.!?:][)\"'”’\]]*$")


@dataclass
class Debris:
    """What one paper's text as extracted tells about debris: its headings and running lines."""

    numbered: set[str] = field(default_factory=set)
    named: set[str] = field(default_factory=set)
    running: set[str] = field(default_factory=set)


def pdf_debris(paper: Paper) -> Debris:
    tracker, found = SectionTracker(), Debris()
    lines = [[x.strip() for x in page.splitlines() if x.strip()] for page in paper.pages]
    for line in (x for page in lines for x in page):
        if tracker.heading(line):
            (found.numbered if line[0].isdigit() else found.named).add(line)
    found.running = {k for k in running_keys(lines) if any(c.isalpha() for c in k)}
    return found


def qasper_debris(paper: Paper) -> Debris:
    names = {page.split("\n", 1)[0].strip() for page in paper.pages[1:]}
    return Debris(named={n for n in names if n})


def has_heading(quote: str, debris: Debris) -> bool:
    flat = " ".join(quote.split())
    if any(h in flat for h in (" ".join(x.split()) for x in debris.numbered)):
        return True
    lines = [x.strip() for x in quote.splitlines()]
    if any(x in debris.named for x in lines[:-1] or []) or (len(lines) > 1 and lines[-1] in debris.named):
        return True
    return any(flat.startswith(h + " ") and flat[len(h) + 1 : len(h) + 2].isupper() for h in debris.named)


def has_running(quote: str, debris: Debris) -> bool:
    lines = [" ".join(x.lower().split()) for x in quote.splitlines()]
    keys = {re.sub(r"\d+", "#", x) for x in lines}
    return bool(keys & debris.running) or any(_PAGE_LINE.fullmatch(x) for x in lines) or bool(_STAMP.search(quote))


def glued_words(text: str) -> int:
    vocab = vocabulary()
    return sum(
        m.group().lower() not in vocab and split_mixed(m.group(), vocab) != m.group() for m in _WORD.finditer(text)
    )


def has_glued(quote: str) -> bool:
    return glued_words(quote) > 0


def tally(outcomes: Sequence[Outcome], debris: dict[str, Debris]) -> Counter[str]:
    """Quotes, and quotes with each kind of debris ("any": with at least one)."""
    out: Counter[str] = Counter()
    for o in outcomes:
        paper = debris[o.question.paper_id]
        for quote in (c.quote for s in o.answer.sentences for c in s.citations):
            marks = {
                "heading": has_heading(quote, paper),
                "running": has_running(quote, paper),
                "glued": has_glued(quote),
            }
            out.update(["quotes", *(k for k, v in marks.items() if v)] + (["any"] if any(marks.values()) else []))
    return out


def _share(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.0f}%)" if total else "-"


def quality(outcomes: Sequence[Outcome]) -> tuple[str, str]:
    quoted = [quotes_evidence(o.question.references, o.answer) for o in outcomes]
    known = [q for q in quoted if q is not None]
    recalls = [evidence_recall(o.question.references, o.sources, 5) for o in outcomes]
    found = [r for r in recalls if r is not None]
    recall = f"{sum(found) / len(found):.3f}" if found else "-"
    return (_share(sum(known), len(known)) if known else "-"), recall


def run_set(name: str, papers: list[Paper], questions: list[Question], debris: dict[str, Debris]) -> list[list[object]]:
    rows: list[list[object]] = []
    for clean in (False, True):
        settings = Settings(chunking={"clean_text": clean})
        store = open_store(CACHE / name / ("clean" if clean else "raw"), settings)
        index_papers(store, papers)
        outcomes = ask_all(store, questions)
        n_sections = store.catalog.query("SELECT COUNT(*) FROM chunks WHERE section != ''")[0][0]
        n_chunks = store.catalog.count_chunks()
        store.close()
        t = tally(outcomes, debris)
        quoted, recall = quality(outcomes)
        shares = [_share(t[k], t["quotes"]) for k in ("any", "heading", "running", "glued")]
        rows.append([name, "on" if clean else "off", len(questions), t["quotes"], *shares, quoted, recall,
                     _share(n_sections, n_chunks)])  # fmt: skip
        print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def shared_set() -> tuple[list[Paper], list[Question]]:
    papers: list[Paper] = []
    questions: list[Question] = []
    for path in sorted(pdf_folder().rglob("*.pdf")):
        try:
            paper = read_pdf(path)
        except Exception:  # the damaged samples among the shared PDFs are not what this measures
            continue
        if paper.paper_id in {p.paper_id for p in papers}:
            continue
        papers.append(paper)
        asked = SHARED_QUESTIONS.get(path.name, GENERIC)
        questions += [Question(f"{path.name}-{i}", paper.paper_id, q, [], "shared") for i, q in enumerate(asked)]
    return papers, questions


# --- parsers side by side ---------------------------------------------------------------------------
def pdfium_pages(path: Path) -> list[str]:
    import pypdfium2

    from ingest.text import clean_text

    doc = pypdfium2.PdfDocument(str(path))
    try:
        return [clean_text(doc[i].get_textpage().get_text_range()) for i in range(len(doc))]
    finally:
        doc.close()


def pypdf_pages(path: Path) -> list[str]:
    return read_pdf(path).pages


def parser_row(name: str, read: object, paths: list[Path]) -> list[object]:
    import time

    pages, seconds, words, glued, left = 0, 0.0, 0, 0, 0
    for path in paths:
        start = time.perf_counter()
        texts = read(path)  # type: ignore[operator]
        seconds += time.perf_counter() - start
        pages += len(texts)
        for text in texts:
            words += len(text.split())
            glued += glued_words(text)
        left += sum(glued_words(b.text) for b in clean_pages(texts))
    per_10k = [f"{10_000 * n / max(words, 1):.1f}" for n in (glued, left)]
    return [name, len(paths), pages, f"{pages / seconds:.1f}", words, glued, *per_10k]


def parsers_table(paths: list[Path]) -> str:
    """The parsers side by side; "" (said, and the recorded table kept) where pypdfium2 is not installed."""
    try:
        import pypdfium2  # noqa: F401  # optional: measured only where it is installed
    except ImportError:
        print("pypdfium2 is not installed here (pip install 'papertalk[pdfium]'): parsers not compared, the table "
              "recorded in docs/benchmarks.md is kept.")  # fmt: skip
        return ""
    rows = [parser_row("pypdf (read_pdf)", pypdf_pages, paths)]
    rows.append(parser_row("pypdfium2 (get_text_range)", pdfium_pages, paths))
    headers = ["parser", "PDFs", "pages", "pages/s", "words", "glued words", "per 10k words", "per 10k after cleanup"]
    return markdown_table(headers, rows)


def readable_pdfs() -> list[Path]:
    out = []
    for path in sorted(pdf_folder().rglob("*.pdf")):
        try:
            read_pdf(path)
        except Exception:
            continue
        out.append(path)
    return out


# --- sentences of the chunks -----------------------------------------------------------------------
def sentence_counts(papers: Sequence[Paper], clean: bool) -> list[object]:
    """Chunks, quotable body sentences, and those holding a footnote or ending without a full stop."""
    chunker = Chunker(ChunkSettings(clean_text=clean))
    chunks = [c for p in papers for c in chunker.chunk(p, p.content_hash())]
    sentences = [s.text for c in chunks if not c.caption for s in split_sentences(c.text) if usable(s)]
    notes = sum(bool(_NOTE_LINE.search(s)) for s in sentences)
    open_end = sum(not _FULL_STOP.search(s.rstrip()) for s in sentences)
    glued = sum(bool(_GLUED_MARK.search(s)) for s in sentences)
    n = max(len(sentences), 1)
    return [
        len(papers),
        len(chunks),
        len(sentences),
        f"{notes} ({100 * notes / n:.1f}%)",
        f"{open_end} ({100 * open_end / n:.1f}%)",
        f"{glued} ({100 * glued / n:.1f}%)",
    ]


SENTENCE_HEADERS = ["cleanup", "PDFs", "chunks", "quotable body sentences", "holding a footnote",
                    "ending without a full stop", "a comma or full stop run into the next word"]  # fmt: skip
# "quality,we", "process.Compared": not "(x,y)", "Fig.1" or "e.g.,"
_GLUED_MARK = re.compile(r"[a-z]{2}[,;][a-z]{2}|[a-z]{3}\.[A-Z][a-z]{2}")


def sentences_table(paths: Sequence[Path]) -> str:
    papers: dict[str, Paper] = {}
    for path in paths:
        paper = read_pdf(path)
        papers.setdefault(paper.content_hash(), paper)
    rows = [["on" if clean else "off", *sentence_counts(list(papers.values()), clean)] for clean in (False, True)]
    return markdown_table(SENTENCE_HEADERS, rows)


def bundled_pdfs() -> list[Path]:
    return sorted((ROOT / "papertalk" / "demo" / "pdfs").glob("*.pdf"))


# --- main -------------------------------------------------------------------------------------------
HEADERS = ["set", "cleanup", "questions", "quotes", "with debris", "heading", "running header/footer",
           "glued word", "evidence quoted", "evidence recall@5", "chunks with a section"]  # fmt: skip


SETS = ("bundled", "qasper", "shared")


def run_sets(names: Sequence[str]) -> list[list[object]]:
    rows: list[list[object]] = []
    if "bundled" in names:
        papers, questions, _, _ = pdf_qa()
        rows += run_set("bundled PDFs, pdf_qa.json", papers, questions, {p.paper_id: pdf_debris(p) for p in papers})
    if "qasper" in names and qasper_dir().exists():
        papers, questions = load_qasper(qasper_dir())
        rows += run_set("QASPER slice", papers, questions, {p.paper_id: qasper_debris(p) for p in papers})
    if "shared" in names and pdf_folder().exists():
        papers, questions = shared_set()
        rows += run_set("shared PDFs", papers, questions, {p.paper_id: pdf_debris(p) for p in papers})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    parser.add_argument("--sets", nargs="*", choices=SETS, default=list(SETS), help="question sets to run")
    parser.add_argument("--no-parsers", action="store_true", help="do not compare pypdf with pypdfium2")
    parser.add_argument("--no-sentences", action="store_true", help="do not count footnotes and cut sentences")
    args = parser.parse_args(argv)
    with quiet_logs():
        rows = run_sets(args.sets)
        shared = readable_pdfs() if pdf_folder().exists() else []
        parsers = parsers_table(shared) if not args.no_parsers and shared else ""
        sentences = "" if args.no_sentences else sentences_table([*shared, *bundled_pdfs()])
    if sentences:
        body = f"{SENTENCE_NOTES}\n\n{sentences}"
        title = "PDF text cleanup: footnotes and sentences cut (bench_cleanup)"
        publish(args, "cleanup-sentences", title, MODULE, body)
    if rows:
        body = f"{markdown_table(HEADERS, rows)}\n\n{BODY_NOTES}"
        publish(args, "cleanup", "PDF text cleanup: debris in answer quotes (bench_cleanup)", MODULE, body)
    if parsers:
        body = f"{PARSER_NOTES}\n\n{parsers}"
        publish(args, "cleanup-parsers", "PDF parsers side by side: pypdf and pypdfium2 (bench_cleanup)", MODULE, body)
    return 0


SENTENCE_NOTES = (
    "Every readable PDF of shared/data/pdfs and the two bundled ones (papertalk/demo/pdfs), each once, chunked "
    "with `chunking.clean_text` off and on; the quotable sentences (`ingest.sentences.usable`) of the chunks "
    "that are not captions. Holding a footnote: a line of the sentence opens with a note's mark glued to its "
    'text ("2We exclude ...", "9https://...", "†Corresponding author"). Ending without a full stop: the '
    "sentence does not end with . ! ? or : (a sentence cut by a page break, a figure or a footnote, or text "
    "that is not prose: table rows, algorithm lines, author lists). A comma or full stop run into the next "
    'word: a sentence holds "quality,we" or "process.Compared" (two letters or more on each side of a comma '
    "or semicolon, or a full stop between a word and a capitalised word)."
)


PARSER_NOTES = (
    "Every readable PDF of shared/data/pdfs read by each parser in turn, in the same run: pages per second "
    "(text extraction and papertalk's `clean_text`; pypdf through `ingest.pdf.read_pdf`), and glued words "
    "(an alphabetic token of 13+ letters, not a known word, that splits into known words) in the text as "
    "extracted and after `ingest.cleanup` (which splits them again)."
)


BODY_NOTES = (
    "Each set indexed twice in the same run, `chunking.clean_text` off (the text as extracted) and on; every "
    "question asked of its own paper with the extractive backend, abstention off. A quote is one citation's "
    "span. Heading: a numbered heading of its paper anywhere in the quote, or an unnumbered one as a line of "
    "its own or glued to the quote's start (QASPER's section names; for PDFs the headings `ingest.sections` "
    "finds in the extracted text). Running header/footer: a line repeated at the edges of the paper's pages, "
    "a bare page number line, or the arXiv stamp. Glued word: an alphabetic token of 13+ letters, not a known "
    "word, that splits into known words. Evidence quoted and recall@5 as in bench_qasper (the shared PDFs "
    "have no gold evidence). Chunks with a section: chunks that record the section they are from."
)


if __name__ == "__main__":
    raise SystemExit(main())
