from ingest.text import arxiv_id_from_filename, arxiv_id_from_text, clean_text, normalise_arxiv_id, one_line


def test_clean_text_joins_hyphenated_line_breaks_and_drops_control_characters() -> None:
    raw = "rein-\nforcement learn\x00ing\x0c with   agents\r\n\n\n\nNext ﬁle"
    assert clean_text(raw) == "reinforcement learning with agents\n\nNext file"


def test_surrogates_from_pdf_text_are_joined_or_dropped() -> None:
    # pypdf returned these for math italics in a real IOP paper; a lone half broke the tokenizer.
    raw = "where \ud835\ud835\udc52 is the \ud835 matrix"
    cleaned = clean_text(raw)
    assert cleaned == "where \U0001d452 is the matrix"
    cleaned.encode("utf-8")  # a lone surrogate would raise here
    assert one_line("stray \udc52half  title") == "stray half title"  # json.loads can yield lone halves too


def test_arxiv_ids_are_normalised_from_every_common_spelling() -> None:
    assert normalise_arxiv_id("arXiv:2501.10120v2") == "2501.10120"
    assert normalise_arxiv_id("https://arxiv.org/abs/2501.10120") == "2501.10120"
    assert normalise_arxiv_id("hep-th/9901001v1") == "hep-th/9901001"
    assert normalise_arxiv_id("not an id") is None


def test_arxiv_id_found_in_file_name_or_first_page() -> None:
    assert arxiv_id_from_filename("2510.24701v2.pdf") == "2510.24701"
    assert arxiv_id_from_filename("paper-2020.acl.pdf") is None
    assert arxiv_id_from_text("... arXiv:2603.15726v1 [cs.CL] 16 Mar 2026") == "2603.15726"
