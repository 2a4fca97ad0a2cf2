"""One paper, one record: copies of a stored paper's PDF are recognised as that paper, not added again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pypdf import PdfWriter

from ingest.identity import doi_from_text, normalise_doi
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers, pdf_papers
from ingest.uploads import add_pdf
from storage.records import Paper, title_key
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF, demo_records
from tests.helpers.pdfs import text_pdf

S2ORC_TITLE = "S2ORC: The Semantic Scholar Open Research Corpus"


def resaved_copy(source: Path, path: Path) -> Path:
    """The PDF rewritten by pypdf with other document metadata (another tool's save): every byte moves."""
    writer = PdfWriter(clone_from=str(source))
    writer.add_metadata({"/Producer": "another PDF tool", "/Subject": "a copy"})
    writer.write(path)
    return path


def updated_copy(source: Path, path: Path) -> Path:
    """The PDF with an incremental update appended (as an annotating viewer saves it)."""
    writer = PdfWriter(str(source), incremental=True)
    writer.add_metadata({"/Keywords": "read, annotated"})
    writer.write(path)
    return path


def _files(store: Store) -> dict[str, str]:
    return {r["sha256"]: r["paper_id"] for r in store.catalog.query("SELECT sha256, paper_id FROM paper_files")}


def test_title_key_folds_case_punctuation_accents_and_first_names() -> None:
    key = title_key(S2ORC_TITLE, ["Kyle Lo", "Lucy Lu Wang"])
    assert key == "s2orcthesemanticscholaropenresearchcorpus|lo"
    assert title_key("S2ORC — the semantic scholar  open-research corpus.", ["K. Lo"]) == key
    assert title_key(S2ORC_TITLE, ["Lo, Kyle"]) == key
    assert title_key("Über Attention", ["José Müller Jr."]) is None  # too short a title to tell papers apart
    assert title_key("Über attention in long documents", ["José Müller Jr."]) == "uberattentioninlongdocuments|muller"
    assert title_key(S2ORC_TITLE, ["Jane Doe"]) != key
    assert title_key(S2ORC_TITLE, []) is None


def test_doi_is_taken_only_where_the_text_states_it() -> None:
    assert doi_from_text("Proc. ACL. https://doi.org/10.18653/V1/2020.acl-main.447.") == "10.18653/v1/2020.acl-main.447"
    assert doi_from_text("DOI: 10.1145/3292500.3330701 (published)") == "10.1145/3292500.3330701"
    assert doi_from_text("the data are on Zenodo (10.5281/zenodo.1234)") is None
    assert normalise_doi("10.1103/PhysRevD.76.013009 10.1000/other") == "10.1103/physrevd.76.013009"
    assert normalise_doi("not a doi") is None


def test_byte_different_copies_of_one_pdf_are_one_paper(store: Store, tmp_path: Path) -> None:
    resaved = resaved_copy(LONGEVAL_PDF, tmp_path / "longeval-resaved.pdf")
    updated = updated_copy(LONGEVAL_PDF, tmp_path / "longeval-annotated.pdf")
    assert len({p.read_bytes() for p in (LONGEVAL_PDF, resaved, updated)}) == 3
    first = Ingestor(store).run(pdf_papers([LONGEVAL_PDF]))
    (paper_id,) = first.paper_ids
    vectors = store.vectors.count()

    again = Ingestor(store).run(pdf_papers([resaved]))

    assert (again.added, again.updated, again.unchanged, again.paper_ids) == (0, 0, 1, [paper_id])
    assert store.catalog.count_papers() == 1 and store.vectors.count() == vectors
    assert set(_files(store).values()) == {paper_id} and len(_files(store)) == 2
    result = add_pdf(store, updated)  # Ask PDF with a third copy: parsed once, then known by its bytes
    assert (result.paper_id, result.parsed) == (paper_id, True)
    assert add_pdf(store, updated).parsed is False
    assert store.catalog.count_papers() == 1 and len(_files(store)) == 3


def test_copies_in_one_run_are_one_paper(store: Store, tmp_path: Path) -> None:
    copies = [resaved_copy(S2ORC_PDF, tmp_path / "a.pdf"), updated_copy(S2ORC_PDF, tmp_path / "b.pdf")]
    report = Ingestor(store).run(pdf_papers([LONGEVAL_PDF, S2ORC_PDF, *copies]))
    assert (report.added, report.unchanged) == (2, 2)
    assert store.catalog.count_papers() == 2 and len(set(report.paper_ids)) == 2
    assert report.paper_ids[1] == report.paper_ids[2] == report.paper_ids[3]
    chunks = {r["chunk_id"] for r in store.catalog.query("SELECT chunk_id FROM chunks")}
    assert chunks == set(store.vectors.collection.get(include=[])["ids"])


def test_a_pdf_with_a_records_title_and_first_author_is_merged_into_it(store: Store, tmp_path: Path) -> None:
    record = Paper(
        paper_id="1911.02782",
        title="S2ORC - the Semantic Scholar open research corpus",
        authors=["Kyle Lo", "Lucy Lu Wang"],
        abstract="We introduce S2ORC, a large corpus of English-language academic papers.",
        categories=["cs.CL"],
        arxiv_id="1911.02782",
    )
    namesake = Paper(paper_id="2101.00001", title=S2ORC_TITLE, authors=["Jane Doe"], abstract="Another paper.")
    Ingestor(store).run([namesake, record])
    pdf = shutil.copy(S2ORC_PDF, tmp_path / "s2orc.pdf")

    report = Ingestor(store).run(pdf_papers([Path(pdf)]))

    assert (report.updated, report.added, report.paper_ids) == (1, 0, ["1911.02782"])
    row = store.catalog.get("1911.02782")
    assert row is not None and (row.title, row.source, row.n_pages) == (record.title, "arxiv-metadata+pdf", 15)
    other = store.catalog.get("2101.00001")
    assert other is not None and other.n_pages == 0 and store.catalog.count_papers() == 2


def test_a_pdf_stating_a_records_doi_is_that_paper(store: Store, tmp_path: Path) -> None:
    line = dict(demo_records(1)[0], doi="10.9999/PaperTalk.2025.7")
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(line) + "\n")
    Ingestor(store).run(arxiv_papers(records))
    stored = store.catalog.get(line["id"])
    assert stored is not None and stored.doi == "10.9999/papertalk.2025.7"
    body = [
        f"Sentence {i} of a preprint whose first page states its DOI, in enough words to be text." for i in range(8)
    ]
    pdf = text_pdf(
        tmp_path / "preprint.pdf", [["A Differently Titled Preprint", "doi:10.9999/papertalk.2025.7", *body]]
    )

    report = Ingestor(store).run(pdf_papers([pdf]))

    assert report.paper_ids == [line["id"]] and report.updated == 1
    row = store.catalog.get(line["id"])
    assert row is not None and row.has_full_text and row.source == "arxiv-metadata+pdf"
    assert store.catalog.count_papers() == 1
