"""Text cleanup before chunking, on real PDFs: furniture removed, headings kept as sections, glued words
split, captions marked."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.chunking import Chunker, reading_order
from ingest.cleanup import (
    Block,
    clean_pages,
    continues,
    drop_note_marks,
    footnote_start,
    footnotes,
    join_hyphens,
    run_in_headings,
    split_run_in_headings,
    without_column_notes,
)
from ingest.pdf import read_pdf
from ingest.sections import SectionTracker
from ingest.sentences import split_sentences
from ingest.wordsplit import restore_spaces
from papertalk.settings import ChunkSettings
from storage.records import Chunk, Paper
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF

FIXTURES = Path(__file__).parents[1] / "fixtures" / "pdfs"
GLUED_PDF = FIXTURES / "index-list-out-of-range-7f4e18385a30ccb00dc637d5123f894f1f862964.pdf"  # words run together


@pytest.fixture(scope="module")
def s2orc() -> Paper:
    return read_pdf(S2ORC_PDF)


@pytest.fixture(scope="module")
def s2orc_chunks(s2orc: Paper) -> list[Chunk]:
    return Chunker(ChunkSettings()).chunk(s2orc, s2orc.content_hash())


def test_running_header_and_page_numbers_are_removed() -> None:
    paper = read_pdf(GLUED_PDF)
    header = "Journal of Physics: Conference Series"
    assert sum(header in page for page in paper.pages) >= 10  # on every page as extracted
    text = "\n".join(b.text for b in clean_pages(paper.pages))
    assert header not in text and "JCRAI-2021" not in text and "doi:10.1088/1742-6596/2188/1/012011" not in text
    assert "\nIOP Publishing\n" not in text
    assert "graph" in text  # the body is still there


def test_page_numbers_of_an_acl_paper_are_removed(s2orc: Paper) -> None:
    assert s2orc.pages[1].startswith("4970\n")  # the page number heads page 2 as extracted
    blocks = clean_pages(s2orc.pages)
    lines = {line.strip() for b in blocks for line in b.text.splitlines()}
    assert not {str(n) for n in range(4969, 4984)} & lines


def test_heading_is_split_from_its_sentence_and_kept_as_the_section(s2orc_chunks: list[Chunk]) -> None:
    sections = [c.section for c in s2orc_chunks]
    assert "2.1 Processing PDFs" in sections and "7 Related work" in sections and "References" in sections
    first = next(c for c in s2orc_chunks if c.section == "2.1 Processing PDFs")
    assert not first.text.startswith("2.1") and "2.1 Processing PDFs" not in first.text
    assert first.page_start == 3  # the section starts on page 3
    # no chunk holds a heading glued to the text around it
    assert not any("Processing PDFs\nWe process" in c.text for c in s2orc_chunks)
    ordered = list(dict.fromkeys(s for s in sections if s and s[0].isdigit()))
    assert ordered[:3] == ["1 Introduction", "2 Constructing the corpus", "2.1 Processing PDFs"]


def test_heading_that_wraps_onto_a_second_line_is_one_section() -> None:
    paper = read_pdf(LONGEVAL_PDF)
    sections = {b.section for b in clean_pages(paper.pages)}
    assert "3 The LONGEVAL guidelines for faithfulness human evaluation" in sections


def test_glued_words_are_split_again() -> None:
    paper = read_pdf(GLUED_PDF)
    assert "dependencygraphwithanadditionalmulti" in paper.pages[0]  # as pypdf extracts it
    text = "\n".join(b.text for b in clean_pages(paper.pages))
    assert "dependency graph with an additional multi" in text
    assert "dependencygraphwithanadditionalmulti" not in text
    assert "methods such as DMCNN" in text  # glued words before an acronym: "methodssuchasDMCNN"
    assert "sequence modeling methods, which" in text  # a comma that lost its space on a run-together line
    assert "aggregation process. Compared to the" in text  # and a full stop


def test_a_run_together_line_gets_its_short_words_and_commas_back() -> None:
    # lines of MiroThinker's report (pp. 10 and 6) as pypdf extracts them
    line = "TrajectoryCuration ToensureRLlearningsignalquality,weimplementacomprehensivetrajectoryfiltering"
    assert restore_spaces(line) == (
        "TrajectoryCuration To ensure RL learning signal quality, we implement a comprehensive trajectory filtering"
    )
    line = "ResultTruncation Certaintools,suchas run_command and run_python_code,mayoccasionallyproduce"
    fixed = "Certain tools, such as run_command and run_python_code, may occasionally produce"
    assert restore_spaces(line).endswith(fixed)


def test_a_line_with_its_spaces_is_left_as_it_is() -> None:
    # a long glued word split does not make its line run together: names, addresses, short words stay
    line = "Andrew Skipper, Justus Perktold and Anurag Roy, see allenai.org/blog and Tosustainsuchdeep"
    assert restore_spaces(line) == line.replace("Tosustainsuchdeep", "To sustain such deep")
    line = "an acousto-optic cell (x,y),see Fig.1.Internationally"
    assert restore_spaces(line) == line
    assert restore_spaces("the pair (x,y) lies in it.The end") == "the pair (x,y) lies in it.The end"


def test_a_run_in_heading_is_set_apart_from_the_sentence_it_opens() -> None:
    # MiroThinker's report, pp. 10 and 6: bold paragraph headings with no full stop of their own
    text = "the ability of instruction following.\nReward Design Our reward function R(x, H) for a trajectory"
    assert split_run_in_headings(text).endswith("\nReward Design. Our reward function R(x, H) for a trajectory")
    assert (
        split_run_in_headings("TrajectoryCuration To ensure RL learning")
        == "Trajectory Curation. To ensure RL learning"
    )
    assert split_run_in_headings("MiroThinker For each task we") == "MiroThinker. For each task we"  # a name stays
    sentences = [s.text for s in split_sentences(split_run_in_headings("Reward Design We design a reward for it."))]
    assert sentences[-1] == "We design a reward for it."


def test_words_that_only_look_like_a_run_in_heading_are_left_alone() -> None:
    for text in (
        "Since A is large, we stop.",  # a sentence opening with a variable
        "we train it with\nGroup Relative Policy Optimization The ...",  # a line that continues a sentence
        "As Figure In this case",  # no heading words
        "Results of Table We see",  # "Table" ends no heading
    ):
        assert split_run_in_headings(text) == text
    title = "Low-Power Silicon Strain Sensors For wearable health monitoring\nJane Doe\nAbstract"
    assert split_run_in_headings(title) != title  # read as a run-in heading anywhere but on page 1
    blocks = clean_pages([title, "as shown.\nStrain Sensing We measure the strain of the gauge over time."])
    assert blocks[0].text.startswith("Low-Power Silicon Strain Sensors For wearable")  # page 1: a title runs on
    assert "Strain Sensing. We measure the strain" in blocks[-1].text


def test_a_run_in_heading_the_paper_uses_elsewhere_is_set_apart_before_any_word() -> None:
    # MiroThinker's report: "Training Objective" opens paragraphs on pp. 8 and 9 before "Each" and "We", and on
    # p. 11 before "GRPO optimizes ...", which no list of sentence openers can know
    pages = [
        ["MiroThinker: a title", "Training Objective. Read as a title on page 1"],
        ["filtering procedures.", "Training Objective Each trajectory is treated as a dialogue."],
        ["Trajectory Curation. To ensure quality we filter.", "Rush Hour is a puzzle we use.", "Andres M Bran and"],
    ]
    assert run_in_headings(pages) == {"Training Objective", "Trajectory Curation"}
    assert run_in_headings([[], [], ["Training Objective. We refine it."]]) == {"Training Objective"}  # blank pages
    known = run_in_headings(pages)
    text = "ones.\nTraining Objective GRPO optimizes the policy by sampling trajectories."
    assert split_run_in_headings(text, known) == (
        "ones.\nTraining Objective. GRPO optimizes the policy by sampling trajectories."
    )
    for same in (
        "we set the\nTraining Objective GRPO optimizes",  # a line that continues a sentence
        "Training Objective Quick Guide",  # a capitalised word, then another: a title, not a sentence
        "Training Objective is to maximise the reward.",  # the heading's words as a sentence's subject
    ):
        assert split_run_in_headings(same, known) == same
    blocks = clean_pages(
        [
            "A Paper Title\nAbstract text here.",
            "We filter the data.\nTraining Objective We refine the SFT model with DPO.",
            "We drop failures.\nTraining Objective GRPO optimizes the policy by sampling many trajectories.",
        ]
    )
    assert "Training Objective. GRPO optimizes the policy" in blocks[-1].text


def test_captions_are_marked_and_kept_out_of_body_chunks(s2orc_chunks: list[Chunk]) -> None:
    captions = [c for c in s2orc_chunks if c.caption]
    assert any(c.text.startswith("Figure 1: Inline citations and references") for c in captions)
    assert any("\n\nTable 1: A comparison of S2ORC" in c.text for c in captions)  # a section's captions share chunks
    body = [c for c in s2orc_chunks if not c.caption]
    assert not any("Figure 1: Inline citations" in c.text for c in body)
    assert len(captions) < len(body) / 3


def test_cleanup_off_keeps_the_text_as_extracted(s2orc: Paper) -> None:
    raw = Chunker(ChunkSettings(clean_text=False)).chunk(s2orc, s2orc.content_hash())
    assert any("4970" in c.text for c in raw)
    assert all(c.section == "" and not c.caption for c in raw)


def test_numbered_lines_out_of_order_are_not_headings() -> None:
    tracker = SectionTracker()
    assert tracker.heading("1 Introduction") and tracker.section == "1 Introduction"
    assert not tracker.heading("2020 Association for Computational Linguistics")
    assert not tracker.heading("5 Results")  # skips chapters 2-4: a wrapped line, not a heading
    assert not tracker.heading("2 of the papers were removed.")  # a sentence
    assert tracker.heading("2 Method") and tracker.heading("2.1 Reward design")
    assert not tracker.heading("1.3 Back to the start")
    assert tracker.section == "2.1 Reward design"


def test_word_hyphenated_across_a_page_break_is_joined() -> None:
    blocks = [Block(1, "tasks that leverage citation contexts in-"), Block(2, "clude classifying citation intent")]
    assert [b.text for b in join_hyphens(blocks)] == [
        "tasks that leverage citation contexts include",
        "classifying citation intent",
    ]


def test_a_title_alone_between_blank_lines_is_a_heading_and_paragraphs_stay_apart() -> None:
    """Text that separates paragraphs with blank lines (QASPER's sections, some PDFs): a short title on a
    paragraph of its own is the section, and the paragraph breaks survive for the sentence splitter."""
    page = "Model Architecture\n\nWe use a transformer encoder.\n\nIt has two layers and no\ndecoder."
    (block,) = clean_pages([page])
    assert block.section == "Model Architecture"
    assert block.text == "We use a transformer encoder.\n\nIt has two layers and no\ndecoder."
    (kept,) = clean_pages(["One line of text that is not a heading\nand its second line."])
    assert kept.section == "" and kept.text.startswith("One line")


def test_footnote_at_the_bottom_of_a_page_goes_after_its_section_and_the_sentence_runs_on() -> None:
    """A sentence cut by the page break and the footnotes under it: the footnote (its mark dropped) goes after
    the section's text, and the sentence reads on across the break as one sentence of one chunk."""
    pages = [
        "2 Survey\nWe survey the field. Most of the 162 surveyed papers\n2We exclude five papers on pre-training.\n"
        "3https://example.org/survey",
        "were published in major venues.\nThey rarely report agreement.\n3 The method\nWe propose a method.",
    ]
    blocks = clean_pages(pages)
    survey = [b for b in blocks if b.section == "2 Survey"]
    assert [b.page for b in survey] == [1, 2, 1, 1]  # the body, then the two notes
    assert (
        survey[2].text == "We exclude five papers on pre-training." and survey[3].text == "https://example.org/survey"
    )
    assert not any("2We" in b.text or "162 surveyed papers\n" in b.text[-30:] for b in survey[:1])
    paper = Paper(paper_id="p", title="A survey", pages=pages)
    chunks = Chunker(ChunkSettings()).chunk(paper, paper.content_hash())
    sentences = [" ".join(s.text.split()) for c in chunks for s in split_sentences(c.text)]
    assert "Most of the 162 surveyed papers were published in major venues." in sentences
    assert "We exclude five papers on pre-training." in sentences
    holding = next(c for c in chunks if "162 surveyed" in c.text)
    assert (holding.page_start, holding.page_end) == (1, 2)


def test_a_sentence_of_a_real_paper_reads_on_across_its_page_break_without_its_footnote() -> None:
    """LongEval (bundled, CC BY): page 2 ends "Most of the 162 surveyed papers" above footnote 2, and page 3 goes
    on "were published in major NLP/ML venues"."""
    paper = read_pdf(LONGEVAL_PDF)
    assert "Most of the 162 surveyed papers\n2We exclude five papers" in paper.pages[1]  # as extracted
    chunks = Chunker(ChunkSettings()).chunk(paper, paper.content_hash())
    found = {
        " ".join(s.text.split()): (c.page_start, c.page_end)
        for c in chunks
        for s in split_sentences(c.text)
        if "162 surveyed papers" in s.text or "We exclude five papers" in s.text
    }
    whole = (
        "Most of the 162 surveyed papers were published in major NLP/ML venues, but we also include newer"
        " preprints from 2022."
    )
    assert found.pop(whole) == (2, 3)
    (note,) = found  # the footnote is a sentence of its own, without its mark
    assert note.startswith("We exclude five papers which used long-form summarization data for pre-training only")


def test_a_columns_notes_in_the_middle_of_the_page_move_out_of_the_sentence_they_cut() -> None:
    """pypdf reads a two-column page's first column, its footnotes, then the second column: the notes come between
    a sentence and its end. They are moved out, to follow the paragraph they cut; notes that do not cut a
    sentence, and text that only looks like a note, stay."""
    lines = [
        "We filter the clusters that have no",
        "13Unpaywall 2019-04-19 data dump",
        "14We use the cld2 tool for language detection with a",
        "threshold of 0.9 over the English language score.",
        "abstract or associated PDF.",
    ]
    kept, notes = without_column_notes(lines)
    assert kept == ["We filter the clusters that have no", "abstract or associated PDF."]
    assert notes == {  # by the line the text goes on with
        1: [
            "Unpaywall 2019-04-19 data dump",
            "We use the cld2 tool for language detection with a\nthreshold of 0.9 over the English language score.",
        ]
    }
    links = ["used directly for both inline (He", "15https://github.com/example/", "bert", "et al., 2010)."]
    assert without_column_notes(links) == ([links[0], links[3]], {1: ["https://github.com/example/\nbert"]})
    untouched = [
        ["The survey ends here.", "2We exclude five papers.", "the next column"],  # no sentence left open
        ["Most of the surveyed papers", "2We exclude five papers.", "The next paragraph."],  # nothing carries it on
        ["We thank Ann Lee, Bo Wu,", "19The Kaggle CORD-19 competitions.", "See Wang et al. for details."],
    ]
    for page in untouched:
        assert without_column_notes(page) == (page, {})


def test_a_real_papers_column_notes_no_longer_cut_its_sentences() -> None:
    """S2ORC (bundled, CC BY), page 4: notes 13 and 14 sit under the first column, between "... associated PDF
    and" and "do not provide significant value ...". Both the sentence and the note are read whole."""
    paper = read_pdf(S2ORC_PDF)
    assert "associated PDF and\n13Unpaywall 2019-04-19 data dump\n14We use the cld2 tool" in paper.pages[3]
    chunks = Chunker(ChunkSettings()).chunk(paper, "s2orc")
    sentences = {" ".join(s.text.split()): c for c in chunks for s in split_sentences(c.text)}
    note = "We use the cld2 tool for language detection with a threshold of 0.9 over the English language score."
    assert note in sentences and sentences[note].page_start == 4
    whole = next(s for s in sentences if s.startswith("We note that a large number of paper clusters are filtered"))
    assert "associated PDF and do not provide significant value to our dataset in their current state." in whole
    assert 0 <= sentences[note].ordinal - sentences[whole].ordinal <= 1  # it follows the paragraph it cut
    assert not any("13Unpaywall" in s or "14We use" in s for s in sentences)


def test_a_sentence_reads_on_past_the_figure_text_at_the_top_of_the_next_page() -> None:
    """LongEval (bundled, CC BY): page 5 ends "FINE annotations have lower"; page 6 opens with Figure 4's axis
    labels and caption, then goes on "standard deviation (and thus higher agreement)". The sentence is read
    whole, and the axis labels are not glued to it."""
    chunks = Chunker(ChunkSettings()).chunk(read_pdf(LONGEVAL_PDF), "longeval")
    sentences = {" ".join(s.text.split()): c for c in chunks for s in split_sentences(c.text)}
    whole = next(s for s in sentences if "lower standard deviation (and thus higher agreement)" in s)
    assert whole.startswith("Overall, we observe that across all settings, FINE annotations have lower standard")
    assert whole.endswith("(7.8 vs 14.0 average on 100-point scaled ratings).")
    assert (sentences[whole].page_start, sentences[whole].page_end) == (5, 6)
    assert not any(s.startswith("standard deviation (and thus") or "COARSE - SQuALITY standard" in s for s in sentences)


def test_figure_text_between_a_sentence_and_its_end_moves_after_it() -> None:
    body = [(5, "Overall, FINE annotations have lower"), (6, "0.1 0.2 0.3\nFraction of units\nFINE - PubMed")]
    rest = (6, "standard deviation than COARSE ones.\nThis leads to better estimates.")
    assert reading_order([*body, rest]) == [body[0], rest, body[1]]
    done = [(5, "The survey ends here."), (6, "0.1 0.2 0.3\nFraction of units"), (6, "a label after the figure")]
    assert reading_order(done) == done  # a full stop ends the sentence: nothing moves


def test_note_marks_after_punctuation_are_dropped_and_numbers_kept() -> None:
    assert drop_note_marks("We introduce S2ORC,1 a large corpus") == "We introduce S2ORC, a large corpus"
    assert drop_note_marks("our software for future research.1\nNext") == "our software for future research.\nNext"
    assert drop_note_marks("each PDF.11 We then use GROBID") == "each PDF. We then use GROBID"
    assert drop_note_marks("in three settings:12 (1) no hints") == "in three settings: (1) no hints"
    kept = ["see Fig.3 for", "Eq.2 gives", "in Section 3.1 we", "(A.1) we", "Appendix C.1 for", "arXiv:2005.14165",
            "V_ov,9 − 2ID,9", "Vov,9)2", "(Lo et al.,2020)"]  # fmt: skip
    assert [drop_note_marks(t) for t in kept] == kept


def test_a_real_abstract_loses_its_note_mark() -> None:
    """S2ORC (bundled, CC BY): "We introduce S2ORC,1 a large corpus" in the text layer, the note's mark after the
    name's comma."""
    paper = read_pdf(S2ORC_PDF)
    assert "S2ORC,1 a large corpus" in paper.pages[0]
    chunks = Chunker(ChunkSettings()).chunk(paper, "s2orc")
    assert any("We introduce S2ORC, a large corpus of 81.1M" in " ".join(c.text.split()) for c in chunks)
    assert not any("S2ORC,1 a" in " ".join(c.text.split()) for c in chunks)


def test_what_marks_a_footnote_and_what_carries_a_sentence_on() -> None:
    lines = ["9https://www.upwork.com/", "14The FINE annotations were shown", "hints.", "†Corresponding author"]
    assert footnotes(lines) == [
        "https://www.upwork.com/",
        "The FINE annotations were shown\nhints.",
        "Corresponding author",
    ]
    lines = ["3 The S2ORC dataset", "text", "2020 was a year"]  # a heading and a year are not notes
    assert footnote_start(lines) == len(lines)
    assert continues("Most of the surveyed papers", "were published")
    assert continues("which they define as:", "“Checking the factual errors")
    assert not continues("The survey ends here.", "the next page")  # a full stop ends it
    assert not continues("FINE annotations have lower", "0.1 0.2 0.3")  # figure ticks do not carry it on
    assert not continues("S2ORC: The Semantic Scholar Corpus", "We introduce S2ORC")


def test_page_ones_front_matter_is_not_read_into_the_abstract() -> None:
    """The IOP paper's page 1 opens with the publisher's licence, then the title, authors and affiliations, with
    nothing to end a sentence before "Abstract.": the notice is left out and each other line is a paragraph of its
    own, so no quote runs from the title into the authors."""
    paper = read_pdf(GLUED_PDF)
    blocks = clean_pages(paper.pages)
    sentences = [s.text for b in blocks if b.page == 1 for s in split_sentences(b.text)]
    assert any(s.startswith("SemEAGAT: A Novel Approach") for s in sentences)  # the title is still there
    assert not any("licence" in s or "must maintain attribution" in s for s in sentences)  # the notice is gone
    assert not any("SemEAGAT" in s and "Yuqi Xi" in s for s in sentences)
    assert any(s.startswith("Event detection (ED) is a task that requires capturing") for s in sentences)


def test_front_matter_is_read_only_above_an_abstract_near_the_top_of_page_one() -> None:
    from ingest.cleanup import FRONT_MATTER_LINES, front_matter, front_matter_end

    notice = ["Content from this work may be used under the CC BY licence. Any further distribution",
              "of this work must maintain attribution."]  # fmt: skip
    lines = [*notice, "A Title That Wraps Onto", "its Second Line", "Ann Author"]
    assert front_matter(lines) == ["A Title That Wraps Onto\nits Second Line", "Ann Author"]

    assert front_matter_end(["A Title", "Ann Author", "ABSTRACT", "We study ..."]) == 2
    assert front_matter_end(["A Title", "Ann Author", "Abstract. We study ..."]) == 2
    assert front_matter_end(["1 Introduction", "Abstracts of papers are short."]) == 0  # not the word alone
    assert front_matter_end(["We study things."] * FRONT_MATTER_LINES + ["Abstract"]) == 0


def test_a_heading_line_between_two_sentences_is_set_apart() -> None:
    """pypdf gives an unnumbered heading as a line of its own with no blank line around it: it no longer opens
    the next sentence ("Proposed Approaches In this section, ...")."""
    page = (
        "Both LoRA and prompt tuning tune only a minor fraction of the total parameters and work well together.\n"
        "Thus, we can easily combine them without increasing the overall parameter count significantly.\n"
        "Proposed Approaches\n"
        "In this section, we introduce our proposed approaches: Retrieval Augmented Prompt Tuning and\n"
        "its novelty conditioned variant, both of which we describe below in some detail for the reader.\n"
    )
    (block,) = clean_pages([page, page])[:1]
    sentences = [s.text for s in split_sentences(block.text)]
    assert "Proposed Approaches" in sentences
    assert any(s.startswith("In this section, we introduce") for s in sentences)


def test_a_columns_line_that_opens_a_sentence_is_not_taken_for_a_heading() -> None:
    """A line of a narrow column that starts a sentence after one ended is as long as the column's other lines
    and ends in a small word: it stays in its sentence (the S2ORC paper)."""
    paper = read_pdf(S2ORC_PDF)
    text = " ".join(" ".join(b.text.split()) for b in clean_pages(paper.pages))
    assert "In this paper, we describe the construction of S2ORC (§2)." in text
    from ingest.cleanup import heading_between

    lines = ["The corpus is large.", "In this paper, we describe the construction of", "S2ORC and its uses in NLP."]
    assert not heading_between(lines, 1, width=len(lines[1]))
    lines = ["The corpus is large.", "Corpus Construction", "We describe how S2ORC is built from PDFs and LaTeX."]
    assert heading_between(lines, 1, width=50)
    assert not heading_between(["The corpus is large.", "Type Method ALFWorld WebShop", "GRPO 10 8 0.2"], 1, 50)


def test_superscript_citation_numbers_after_a_full_stop_are_dropped() -> None:
    """A paper that cites by superscript numbers: pypdf sets them after the sentence's full stop, where they would
    open the next sentence ("127 The AqSolDB curated database ..."). A paper that does not keeps a sentence that
    opens with a number."""
    body = (
        "Deep learning is advancing the boundaries of chemistry. 1–3 Applications of DL can be found widely.\n"
        "A model can be trusted if we understand why the prediction was made. 17 Explaining predictions helps.\n"
        "Two infamous examples exist. 18,19 Regulators care about this. 21 As a result, there is a new framework.\n"
        "We implemented an RNN model to predict solubilities of small molecules. 127 The AqSolDB curated\n"
        "database was used to train the model.\n"
    )
    text = "\n".join(b.text for b in clean_pages([body, body]))
    sentences = [s.text for s in split_sentences(text)]
    assert "The AqSolDB curated\ndatabase was used to train the model." in sentences
    assert not any(s[0].isdigit() for s in sentences)
    plain = "The tagger labels nouns and verbs (noun for one, verb for the other). 17 English words fall into both."
    assert "17 English words fall into both." in [s.text for b in clean_pages([plain]) for s in split_sentences(b.text)]


def test_a_numbered_headings_second_line_in_small_letters_is_part_of_it() -> None:
    page = (
        "2.1 Representing and manipulating\n"
        "visually-rich documents with magelib\n"
        "In this section, we use code snippets to show how our library's abstractions work.\n"
    )
    (block,) = clean_pages([page])
    assert block.section == "2.1 Representing and manipulating visually-rich documents with magelib"
    assert block.text.startswith("In this section")
    sections = {b.section for b in clean_pages(read_pdf(LONGEVAL_PDF).pages)}
    assert "3.1 RQ1: Does inter-annotator agreement improve using fine-grained annotations?" in sections
