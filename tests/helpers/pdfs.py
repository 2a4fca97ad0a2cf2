"""Build PDFs for tests with pypdf: small text PDFs, and broken copies of real ones."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import ContentStream, DictionaryObject, NameObject

_LETTER = (612, 792)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _helvetica() -> DictionaryObject:
    font = DictionaryObject()
    font.update(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    return font


def _set_content(writer: PdfWriter, page_index: int, operators: bytes, resources: DictionaryObject) -> None:
    page = writer.pages[page_index]
    page[NameObject("/Resources")] = resources
    stream = ContentStream(None, None)
    stream.set_data(operators)
    page.replace_contents(stream)


def text_pdf(path: Path, pages: list[list[str]], title: str | None = None) -> Path:
    """A PDF with a real text layer: each page is a list of lines in Helvetica."""
    writer = PdfWriter()
    for index, lines in enumerate(pages):
        writer.add_blank_page(*_LETTER)
        body = " T* ".join(f"({_escape(line)}) Tj" for line in lines)
        ops = f"BT /F1 11 Tf 14 TL 56 740 Td {body} ET".encode("latin-1")
        fonts = DictionaryObject({NameObject("/F1"): _helvetica()})
        _set_content(writer, index, ops, DictionaryObject({NameObject("/Font"): fonts}))
    if title:
        writer.add_metadata({"/Title": title})
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def blank_pdf(path: Path, n_pages: int = 3) -> Path:
    """Pages with nothing on them: no text layer at all."""
    writer = PdfWriter()
    for _ in range(n_pages):
        writer.add_blank_page(*_LETTER)
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def image_only_pdf(path: Path, n_pages: int = 2) -> Path:
    """What a scan looks like: every page one grey image (inline, hex-coded), no text operators."""
    side = 16
    pixels = bytes((x * 7 + y * 13) % 256 for y in range(side) for x in range(side)).hex()
    image = f"q 500 0 0 700 56 46 cm BI /W {side} /H {side} /CS /G /BPC 8 /F /AHx ID {pixels}> EI Q"
    writer = PdfWriter()
    for index in range(n_pages):
        writer.add_blank_page(*_LETTER)
        _set_content(writer, index, image.encode("ascii"), DictionaryObject())
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def truncated_copy(source: Path, path: Path, keep: float = 0.5) -> Path:
    """The first `keep` share of a real PDF's bytes: an interrupted download."""
    data = source.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def encrypted_copy(source: Path, path: Path, password: str) -> Path:
    """A real PDF re-saved with a user password (RC4-128, which pypdf writes without extra packages)."""
    writer = PdfWriter(clone_from=str(source))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    with path.open("wb") as fh:
        writer.write(fh)
    return path
