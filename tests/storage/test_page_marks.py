"""Where each page starts in a chunk: kept in the catalog as text, read back, and used to find a quote's page."""

from __future__ import annotations

import pytest

from storage.records import decode_page_marks, encode_page_marks, pages_of_span

MARKS = ((0, 4), (120, 5), (300, 4))  # a footnote of p. 4 moved after p. 5's text steps back a page


def test_marks_round_trip_through_their_text() -> None:
    assert encode_page_marks(MARKS) == "0:4;120:5;300:4"
    assert decode_page_marks(encode_page_marks(MARKS)) == MARKS
    assert encode_page_marks(()) == "" and decode_page_marks("") == () and decode_page_marks(None) == ()


@pytest.mark.parametrize("text", ["0:4;x:5", "0:4;", "4", "0:-1", ";"])
def test_text_not_in_the_form_reads_as_no_marks(text: str) -> None:
    assert decode_page_marks(text) == ()


@pytest.mark.parametrize(
    ("start", "end", "pages"),
    [
        (0, 50, (4, 4)),  # on the first page
        (130, 200, (5, 5)),  # wholly on the second
        (100, 150, (4, 5)),  # across the break
        (119, 120, (4, 4)),  # the last character before the break
        (120, 121, (5, 5)),  # the first after it
        (310, 320, (4, 4)),  # the footnote
        (100, 350, (4, 5)),  # all three pieces
        (500, 500, (4, 4)),  # an empty span past the end: on the last piece's page
    ],
)
def test_a_span_is_on_the_pages_its_text_runs_through(start: int, end: int, pages: tuple[int, int]) -> None:
    assert pages_of_span(MARKS, start, end, (4, 5)) == pages


def test_a_chunk_without_marks_cites_its_own_range() -> None:
    assert pages_of_span((), 10, 20, (2, 3)) == (2, 3)
    assert pages_of_span((), 10, 20, (None, None)) == (None, None)
