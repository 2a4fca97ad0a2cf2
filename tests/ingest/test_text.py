from ingest.text import arxiv_id_from_filename, arxiv_id_from_text, clean_text, normalise_arxiv_id


def test_clean_text_joins_hyphenated_line_breaks_and_drops_control_characters() -> None:
    raw = "rein-\nforcement learn\x00ing\x0c with   agents\r\n\n\n\nNext ﬁle"
    assert clean_text(raw) == "reinforcement learning with agents\n\nNext file"


def test_arxiv_ids_are_normalised_from_every_common_spelling() -> None:
    assert normalise_arxiv_id("arXiv:2501.10120v2") == "2501.10120"
    assert normalise_arxiv_id("https://arxiv.org/abs/2501.10120") == "2501.10120"
    assert normalise_arxiv_id("hep-th/9901001v1") == "hep-th/9901001"
    assert normalise_arxiv_id("not an id") is None


def test_arxiv_id_found_in_file_name_or_first_page() -> None:
    assert arxiv_id_from_filename("2510.24701v2.pdf") == "2510.24701"
    assert arxiv_id_from_filename("paper-2020.acl.pdf") is None
    assert arxiv_id_from_text("... arXiv:2603.15726v1 [cs.CL] 16 Mar 2026") == "2603.15726"
