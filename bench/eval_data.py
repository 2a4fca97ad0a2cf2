"""Loaders for the calibration data: QASA out-of-scope questions, SciFact rationales, and the PDF question set.

The shared files' exact layout varies between exports, so the QASA and SciFact readers accept the usual
ones (JSON, JSON lines, CSV; the Hugging Face flat layout and the original SciFact one) and say what they
found. The PDF question set (bench/pdf_qa.json) ships with the project: questions written for the two
CC BY papers bundled in papertalk/demo/pdfs, so the calibration runs on a clone without shared/.
"""

from __future__ import annotations

import ast
import csv
import json
import re
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.qa_harness import Question, Reference
from ingest.pdf import read_pdf
from papertalk.demo import DEMO_PDFS
from storage.records import Paper

PDF_QA = Path(__file__).with_name("pdf_qa.json")
csv.field_size_limit(sys.maxsize)


def half(key: str) -> str:
    """A stable split of anything with an id: "calibration" or "held-out", by CRC-32 parity."""
    return "calibration" if zlib.crc32(key.encode()) % 2 == 0 else "held-out"


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    """Top-level dict records of a JSON, JSON-lines or CSV file (a top-level list yields its items)."""
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as fh:
            yield from csv.DictReader(fh)
        return
    text = path.read_text(encoding="utf-8")
    decoder, pos = json.JSONDecoder(), 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        value, pos = decoder.raw_decode(text, pos)
        yield from (v for v in (value if isinstance(value, list) else [value]) if isinstance(v, dict))


def with_question(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict with a "question" key, however deeply nested (e.g. {paper: {question_id: {...}}})."""
    if isinstance(value, list):
        for item in value:
            yield from with_question(item)
    elif isinstance(value, dict):
        if "question" in value:
            yield value
        else:
            for item in value.values():
                yield from with_question(item)


def data_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".json", ".jsonl", ".csv") and p.is_file())


# --- QASA ---------------------------------------------------------------------------------------------
def qasa_questions(folder: Path) -> list[str]:
    """Distinct question texts of every record with a "question" field."""
    seen: dict[str, None] = {}
    for path in data_files(folder):
        for record in (r for top in iter_records(path) for r in with_question(top)):
            text = record.get("question")
            if isinstance(text, str) and text.strip():
                seen.setdefault(" ".join(text.split()), None)
    return list(seen)


def out_of_scope(texts: list[str], paper_ids: list[str], source: str) -> list[Question]:
    """Each question asked of one paper (chosen by its hash), with no reference: it should abstain."""
    ordered = sorted(paper_ids)
    return [
        Question(
            f"{source}-{zlib.crc32(t.encode()):08x}", ordered[zlib.crc32(t.encode()) % len(ordered)], t, [], source
        )
        for t in texts
    ]


# --- SciFact ------------------------------------------------------------------------------------------
@dataclass
class Claim:
    claim_id: str
    text: str
    doc_id: str
    rationale: set[int] = field(default_factory=set)  # indices into `sentences` that support the claim
    split: str = "calibration"
    sentences: list[str] = field(default_factory=list)  # the cited abstract (or passage), sentence by sentence


def _ints(value: Any) -> set[int]:
    if isinstance(value, list):
        return {int(v) for v in value}
    return {int(v) for v in re.findall(r"\d+", str(value or ""))}


def _split_of(path: Path) -> str | None:
    name = path.name.lower()
    if "train" in name:
        return "calibration"
    if "dev" in name or "valid" in name:
        return "held-out"
    return None  # test claims carry no rationales


def _claims_of(record: dict[str, Any], split: str) -> Iterator[Claim]:
    cid, text = str(record.get("id", "")), str(record.get("claim", "")).strip()
    evidence = record.get("evidence")
    if isinstance(evidence, dict):  # the original layout: {doc_id: [{"sentences": [...], "label": ...}]}
        for doc_id, sets in evidence.items():
            sentences = {i for s in sets if s.get("label") == "SUPPORT" for i in _ints(s.get("sentences"))}
            if sentences:
                yield Claim(cid, text, str(doc_id), sentences, split)
    elif str(record.get("evidence_label", "")).upper() == "SUPPORT":  # the flat layout, one row per document
        sentences = _ints(record.get("evidence_sentences"))
        if sentences:
            yield Claim(cid, text, str(record.get("evidence_doc_id", "")).strip(), sentences, split)


def scifact_claims(folder: Path) -> list[Claim]:
    """Claims with supporting rationale sentences, merged per (claim, document); train → calibration."""
    merged: dict[tuple[str, str], Claim] = {}
    for path in data_files(folder):
        split = _split_of(path)
        if split is None:
            continue
        for record in iter_records(path):
            for claim in _claims_of(record, split):
                key = (claim.claim_id, claim.doc_id)
                merged.setdefault(key, claim).rationale |= claim.rationale
    return list(merged.values())


def _sentence_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(s) for s in value]
    if isinstance(value, str) and value.startswith("["):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return []
        return [str(s) for s in parsed] if isinstance(parsed, list) else []
    return []


def scifact_sentences(*files: Path) -> dict[str, list[str]]:
    """Document id → abstract sentences, from a corpus with `sentences` (BEIR) or `abstract` as a list."""
    out: dict[str, list[str]] = {}
    for path in files:
        for record in iter_records(path):
            doc_id = str(record.get("_id", record.get("doc_id", ""))).strip()
            sentences = _sentence_list(record.get("sentences")) or _sentence_list(record.get("abstract"))
            if doc_id and sentences:
                out.setdefault(doc_id, sentences)
    return out


# --- the PDF question set -------------------------------------------------------------------------------
def pdf_qa(alternatives: bool = False) -> tuple[list[Paper], list[Question], list[str], dict[str, str]]:
    """Papers (read from the bundled PDFs), their questions, generic out-of-scope questions, and claims.

    Claims map a question id to the answer written as one declarative sentence (for the support check). With
    `alternatives`, each of a question's `also` sets (other sentences of the paper that state the answer, as the
    PDF cleanup reads them) is one more reference, as a second annotator's evidence would be.
    """
    spec = json.loads(PDF_QA.read_text(encoding="utf-8"))
    papers, questions, claims = [], [], {}
    for entry in spec["papers"]:
        paper = read_pdf(DEMO_PDFS / entry["pdf"])
        papers.append(paper)
        for i, q in enumerate(entry["questions"]):
            qid = f"{entry['pdf']}-{i:02d}"
            if q.get("answer"):
                refs = [Reference("abstractive", q["answer"], tuple(q.get("evidence", [])))]
                refs += [Reference("abstractive", q["answer"], tuple(e)) for e in q.get("also", []) if alternatives]
                claims[qid] = q.get("claim", "")
            else:
                refs = [Reference("none", "Unanswerable")]
            questions.append(Question(qid, paper.paper_id, q["question"], refs, "pdf-qa"))
    return papers, questions, spec["out_of_scope"], claims


def cross_paper(questions: list[Question]) -> list[Question]:
    """Each answerable question asked of the other papers of the set: out of scope there."""
    papers = sorted({q.paper_id for q in questions})
    return [
        Question(f"{q.qid}@{other}", other, q.text, [], "cross-paper")
        for q in questions
        if q.answerable
        for other in papers
        if other != q.paper_id
    ]
