"""Hostile PDFs, written byte by byte: bombs that are small on disk and huge to parse.

Each builder writes a complete, well-formed PDF (header, numbered objects, a correct xref table, trailer)
so that the parser's trouble comes from what the file asks for, not from damage.
"""

from __future__ import annotations

import zlib
from pathlib import Path

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
SENTENCE = "Agents trained with turn-level rewards complete more web tasks than agents given outcome rewards."


def raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF whose object n (from 1) is `objects[n - 1]`; object 1 must be the catalog."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def flate_stream(data: bytes) -> bytes:
    return stream(zlib.compress(data, 9), b"/Filter /FlateDecode ")


def text_ops(lines: list[str]) -> bytes:
    body = " T* ".join(f"({line}) Tj" for line in lines)
    return f"BT /F1 11 Tf 14 TL 56 740 Td {body} ET".encode("latin-1")


def page(contents: int, extra: bytes = b"") -> bytes:
    return (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> %s>>" % (contents, extra)
    )


def pages_tree(kids: list[int], count: int | None = None) -> bytes:
    refs = b" ".join(b"%d 0 R" % k for k in kids)
    return b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids) if count is None else count)


CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"


def small_text_pdf(path: Path, n_pages: int = 2) -> Path:
    """A plain, valid text PDF (objects: catalog, pages, font, then page + contents per page)."""
    objects = [CATALOG, b"", FONT]
    kids = []
    for i in range(n_pages):
        kids.append(len(objects) + 1)
        objects += [page(len(objects) + 2), stream(text_ops([f"Page {i + 1}.", *[SENTENCE] * 6]))]
    objects[1] = pages_tree(kids)
    path.write_bytes(raw_pdf(objects))
    return path


def page_tree_bomb(path: Path, copies: int = 90_000, declared: int | None = None) -> Path:
    """One text page that the page tree lists `copies` times: a few hundred KB, `copies` pages to parse.

    The tree's /Count says `declared` (default: the truth)."""
    objects = [CATALOG, pages_tree([4] * copies, declared), FONT, page(5), stream(text_ops([SENTENCE] * 8))]
    path.write_bytes(raw_pdf(objects))
    return path


def zero_padded(path: Path, size: int) -> Path:
    """A valid small text PDF followed by zero bytes up to `size` (a sparse file: no disk is used)."""
    small_text_pdf(path)
    with path.open("r+b") as fh:
        fh.truncate(size)
    return path


def shared_stream_pdf(path: Path, n_pages: int = 20, stream_mb: int = 20) -> Path:
    """`n_pages` pages that all draw one content stream of `stream_mb` MB of text operators (Flate: small)."""
    op = b"BT /F1 9 Tf 20 700 Td (reward) Tj ET\n"
    ops = op * (stream_mb * (1 << 20) // len(op))
    objects = [CATALOG, pages_tree(list(range(5, 5 + n_pages))), FONT, flate_stream(ops)]
    objects += [page(4) for _ in range(n_pages)]
    path.write_bytes(raw_pdf(objects))
    return path


def flate_bomb(path: Path, inflated_mb: int = 300) -> Path:
    """One page whose content stream inflates to `inflated_mb` MB of spaces (about 1/1000 of that on disk)."""
    packer = zlib.compressobj(9)
    block = b" " * (1 << 20)
    packed = b"".join(packer.compress(block) for _ in range(inflated_mb)) + packer.flush()
    bomb = stream(packed, b"/Filter /FlateDecode ")
    objects = [CATALOG, pages_tree([4]), FONT, page(5), bomb]
    path.write_bytes(raw_pdf(objects))
    return path


def deep_nesting(path: Path, depth: int = 100_000) -> Path:
    """A text page whose dictionary holds an array nested `depth` levels deep."""
    nested = b"[" * depth + b"]" * depth
    objects = [CATALOG, pages_tree([4]), FONT, page(5, b"/Nest " + nested + b" "), stream(text_ops([SENTENCE] * 8))]
    path.write_bytes(raw_pdf(objects))
    return path


def broken_pages_pdf(path: Path, n_pages: int, broken: set[int], ops: bytes | None = None) -> Path:
    """A text PDF whose pages numbered in `broken` (from 1) have a content stream that does not inflate,
    or, with `ops`, draw those operators instead."""
    objects = [CATALOG, b"", FONT]
    kids = []
    for number in range(1, n_pages + 1):
        kids.append(len(objects) + 1)
        if number not in broken:
            body = stream(text_ops([f"Page {number}.", SENTENCE, SENTENCE]))
        elif ops is None:
            body = stream(b"\x00 these bytes are not zlib data " * 4, b"/Filter /FlateDecode ")
        else:
            body = stream(ops)
        objects += [page(len(objects) + 2), body]
    objects[1] = pages_tree(kids)
    path.write_bytes(raw_pdf(objects))
    return path


def sentence_splitter_trap(path: Path, repeats: int) -> Path:
    """One page of "a. a. a. …": about a KB on disk, and text on which the sentence splitter's regular
    expressions run past their time limit."""
    ops = b"BT /F1 9 Tf 20 700 Td (" + b"a. " * repeats + b") Tj ET"
    path.write_bytes(raw_pdf([CATALOG, pages_tree([4]), FONT, page(5), flate_stream(ops)]))
    return path
