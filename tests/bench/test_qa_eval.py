"""The Ask PDF benchmark and the calibration: measures, loaders and threshold choice, on cases worked by hand."""

import json
from pathlib import Path

import pytest

from assistant.types import Passage
from bench.bench_qasper import iter_json_objects, load_qasper, qasper_run, reference
from bench.calibrate import qasper_samples
from bench.eval_data import half, pdf_qa, qasa_questions, scifact_claims, scifact_sentences
from bench.qa_harness import Reference, best_f1, evidence_recall, normalize, token_f1
from bench.support import scifact_set
from bench.thresholds import Sample, balanced_accuracy, choose, prf
from ingest.chunking import Chunker
from papertalk.settings import ChunkSettings

PARAGRAPH = (
    "We collect three annotations per summary and use a five point Likert scale, the most common choice "
    "in our survey. In total, one hundred and twenty summaries are evaluated by freelancers."
)


def passage(text: str) -> Passage:
    return Passage("c", "p", "t", [], None, None, 1, 1, text)


def test_answer_f1_is_squad_token_f1_max_over_references() -> None:
    assert normalize("The  Transformer, (a) model!") == "transformer model"
    assert token_f1("the 81.1M papers", "81.1M papers") == 1.0
    assert token_f1("81.1M academic papers", "81.1M papers") == pytest.approx(0.8)  # P 2/3, R 1
    assert token_f1("", "") == 1.0 and token_f1("x", "") == 0.0
    refs = [Reference("extractive", "GROBID"), Reference("abstractive", "ScienceParse and GROBID")]
    assert best_f1("ScienceParse and GROBID", refs) == 1.0
    assert best_f1("Unanswerable", [Reference("none", "Unanswerable")]) == 1.0


def test_evidence_counts_when_a_passage_holds_most_of_it_or_is_mostly_made_of_it() -> None:
    refs = [Reference("abstractive", "120", (PARAGRAPH,))]
    around = passage("Section 3. " + PARAGRAPH + " Then we compute agreement.")
    assert evidence_recall(refs, [passage("unrelated text about GPUs and training"), around], 5) == 1.0
    assert evidence_recall(refs, [passage("unrelated text about GPUs and training"), around], 1) == 0.0
    half_of_it = passage(PARAGRAPH[: len(PARAGRAPH) // 2])  # a chunk that is part of a long paragraph
    assert evidence_recall(refs, [half_of_it], 5) == 1.0
    shuffled = passage(" ".join(reversed(PARAGRAPH.split())))  # the same words, no shared 4-grams
    assert evidence_recall(refs, [shuffled], 5) == 0.0
    two = [Reference("abstractive", "x", (PARAGRAPH, "Another paragraph that is nowhere to be found here."))]
    assert evidence_recall(two + refs, [around], 5) == 1.0  # the best annotator counts
    assert evidence_recall(two, [around], 5) == 0.5
    assert evidence_recall([Reference("none", "Unanswerable")], [around], 5) is None


def test_qasper_answers_are_read_as_its_evaluator_reads_them() -> None:
    base = {"unanswerable": False, "extractive_spans": [], "yes_no": None, "free_form_answer": "", "evidence": []}
    assert reference({**base, "extractive_spans": ["BERT", "ELMo"]}).text == "BERT, ELMo"
    assert reference({**base, "yes_no": False}) == Reference("boolean", "No")
    assert reference({**base, "unanswerable": True}).kind == "none"
    ref = reference({**base, "free_form_answer": "two", "evidence": ["FLOAT SELECTED: Table 2", "A paragraph."]})
    assert (ref.kind, ref.evidence) == ("abstractive", ("A paragraph.",))


def test_qasper_papers_become_paged_papers_with_their_questions(tmp_path: Path) -> None:
    record = {
        "id": "1909.00001",
        "title": "A paper",
        "abstract": "We study things.",
        "full_text": {"section_name": ["Intro", "Empty"], "paragraphs": [["First para.", "Second para."], [""]]},
        "qas": {
            "question": ["What is studied?"],
            "question_id": ["q1"],
            "answers": [{"answer": [{"unanswerable": True}, {"free_form_answer": "things", "evidence": []}]}],
        },
    }
    (tmp_path / "sample.json").write_text(json.dumps(record, indent=1) + "\n" + json.dumps({**record, "id": "2"}))
    assert [r["id"] for r in iter_json_objects((tmp_path / "sample.json").read_text())] == ["1909.00001", "2"]
    papers, questions = load_qasper(tmp_path)
    assert papers[0].pages == ["We study things.", "Intro\n\nFirst para.\n\nSecond para."]
    q = questions[0]
    assert (q.paper_id, q.kind, q.unanswerable, q.answerable) == ("1909.00001", "none", False, False)


def test_threshold_is_the_middle_of_the_best_range_that_keeps_enough_positives() -> None:
    samples = [Sample(s, True, "a", "c") for s in (0.6, 0.7)] + [Sample(s, False, "b", "c") for s in (0.2, 0.3)]
    assert choose(samples) == 0.46  # 0.31..0.60 separate perfectly: the 16th of those 30
    assert balanced_accuracy(samples, 0.46) == 1.0
    pos = [Sample(0.2, True, "a", "c")] + [Sample(0.8, True, "a", "c")] * 9
    neg = [Sample(0.5, False, "b", "c")] * 10
    assert choose(pos + neg) == 0.66  # 0.51..0.80: 90% kept, every negative caught
    assert choose(pos + neg, max_miss=0.05) == 0.1  # keeping every positive means catching nothing
    assert prf(pos + neg, 0.6) == pytest.approx((1.0, 0.9, 2 * 0.9 / 1.9))


def test_qasa_and_scifact_loaders_accept_the_usual_layouts(tmp_path: Path) -> None:
    (tmp_path / "qasa.json").write_text(json.dumps({"p1": {"q1": {"question": " Why  so? "}}, "p2": [{"x": 1}]}))
    (tmp_path / "more.csv").write_text("id,question\n1,Why so?\n2,And how?\n")
    assert qasa_questions(tmp_path) == ["Why so?", "And how?"]  # files in name order, whitespace-normalised, once
    claims = tmp_path / "claims"
    claims.mkdir()
    (claims / "claims_train.csv").write_text(
        "id,claim,evidence_doc_id,evidence_label,evidence_sentences\n"
        '1,A helps B.,42,SUPPORT,"[0, 2]"\n2,C hurts D.,43,CONTRADICT,[1]\n3,E.,44,,[]\n'
    )
    original = {"id": 9, "claim": "F.", "evidence": {"7": [{"sentences": [1], "label": "SUPPORT"}]}}
    (claims / "claims_dev.jsonl").write_text(json.dumps(original) + "\n")
    (claims / "claims_test.jsonl").write_text(json.dumps({"id": 10, "claim": "G."}) + "\n")
    found = {(c.claim_id, c.doc_id, frozenset(c.rationale), c.split) for c in scifact_claims(claims)}
    assert found == {("1", "42", frozenset({0, 2}), "calibration"), ("9", "7", frozenset({1}), "held-out")}
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"_id": "42", "title": "t", "text": "a b", "sentences": ["a", "b"]}) + "\n")
    assert scifact_sentences(corpus) == {"42": ["a", "b"]}
    assert half("x") == half("x") and {half(str(i)) for i in range(10)} == {"calibration", "held-out"}


def test_every_pdf_set_answer_has_its_evidence_in_the_bundled_pdf() -> None:
    papers, questions, off_topic, claims = pdf_qa()
    text = {p.paper_id: " ".join("\n".join(p.pages).split()) for p in papers}
    answerable = [q for q in questions if q.answerable]
    assert len(papers) == 2 and len(answerable) >= 30 and len(off_topic) >= 10
    for q in answerable:
        assert q.references[0].evidence and claims[q.qid], q.qid
        for evidence in q.references[0].evidence:
            assert " ".join(evidence.split()) in text[q.paper_id], (q.qid, evidence)


def test_benchmarks_skip_the_shared_sets_cleanly_when_they_are_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERTALK_SHARED", str(tmp_path / "nowhere"))
    with pytest.raises(SystemExit) as exit_info:
        qasper_run(tmp_path / "cache")
    assert exit_info.value.code == 0
    samples, note = qasper_samples()
    assert samples == [] and "not found" in note
    claims, note = scifact_set()
    assert claims == [] and "not found" in note


def test_every_other_answering_sentence_of_the_pdf_set_is_in_the_paper_as_papertalk_reads_it() -> None:
    """The `also` sets are sentences of the paper as the PDF cleanup reads it (note marks dropped, sentences
    joined across page breaks): each is in the text of the paper's chunks, and each becomes one more reference."""
    papers, plain, _, _ = pdf_qa()
    _, with_also, _, _ = pdf_qa(alternatives=True)
    chunker = Chunker(ChunkSettings())
    text = {p.paper_id: " ".join(" ".join(c.text for c in chunker.chunk(p, "x" * 20)).split()) for p in papers}
    extra = 0
    for before, after in zip(plain, with_also, strict=True):
        assert after.references[0] == before.references[0]
        for ref in after.references[1:]:
            extra += 1
            assert ref.evidence and ref.text == before.references[0].text, after.qid
            for sentence in ref.evidence:
                assert " ".join(sentence.split()) in text[after.paper_id], (after.qid, sentence)
    assert extra >= 40 and sum(len(q.references) > 1 for q in with_also) >= 20
