"""Seeded mutations of real PDFs: what damaged downloads, bad producers and hostile edits look like.

Each mutation is a function `(data, rng) -> data`; `mutants` applies one or two of them to seed files,
deterministically for a given seed number, and writes the results.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Iterator
from io import BytesIO
from pathlib import Path

from pypdf import PdfReader, PdfWriter

Mutation = Callable[[bytes, random.Random], bytes]


def _span(data: bytes, rng: random.Random, longest: int) -> tuple[int, int]:
    start = rng.randrange(len(data))
    return start, min(len(data), start + rng.randint(1, longest))


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 40)):
        out[rng.randrange(len(out))] ^= rng.randint(1, 255)
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: int(len(data) * rng.uniform(0.05, 0.99))]


def break_xref(data: bytes, rng: random.Random) -> bytes:
    """A wrong startxref offset, or xref entries pointing to the wrong places."""
    if rng.random() < 0.5:
        return re.sub(rb"startxref\s+\d+", b"startxref\n%d" % rng.randrange(len(data) * 2), data)
    return re.sub(rb"\d{10} \d{5} n", lambda m: b"%010d 00000 n" % rng.randrange(len(data)), data)


def wrong_length(data: bytes, rng: random.Random) -> bytes:
    """Streams whose /Length is zero, short, long, or absurd."""
    choices = [lambda n: 0, lambda n: n // 2, lambda n: n * 2 + 17, lambda n: 10**9, lambda n: n + 1]

    def change(m: re.Match[bytes]) -> bytes:
        if rng.random() > 0.5:
            return m.group(0)
        return b"/Length %d" % rng.choice(choices)(int(m.group(1)))

    return re.sub(rb"/Length (\d+)", change, data)


def corrupt_streams(data: bytes, rng: random.Random) -> bytes:
    """Bytes flipped inside compressed stream data (pages whose content no longer inflates)."""
    out = bytearray(data)
    starts = [m.end() for m in re.finditer(rb"stream\r?\n", data)]
    for start in rng.sample(starts, k=min(len(starts), rng.randint(1, 6))):
        for _ in range(rng.randint(1, 8)):
            out[min(len(out) - 1, start + rng.randrange(64))] ^= rng.randint(1, 255)
    return bytes(out)


def delete_range(data: bytes, rng: random.Random) -> bytes:
    start, end = _span(data, rng, len(data) // 4)
    return data[:start] + data[end:]


def duplicate_range(data: bytes, rng: random.Random) -> bytes:
    start, end = _span(data, rng, 4096)
    at = rng.randrange(len(data))
    return data[:at] + data[start:end] + data[at:]


def zero_range(data: bytes, rng: random.Random) -> bytes:
    start, end = _span(data, rng, 8192)
    return data[:start] + bytes(end - start) + data[end:]


def break_keywords(data: bytes, rng: random.Random) -> bytes:
    """Some obj / endobj / stream / endstream / trailer keywords mangled."""

    def change(m: re.Match[bytes]) -> bytes:
        return m.group(0)[::-1] if rng.random() < 0.2 else m.group(0)

    return re.sub(rb"endstream|endobj|stream|obj|trailer", change, data)


def insert_garbage(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + rng.randbytes(rng.randint(1, 2048)) + data[at:]


def nest_arrays(data: bytes, rng: random.Random) -> bytes:
    """An array opened thousands of times over."""
    opens = [m.start() for m in re.finditer(rb"\[", data)] or [len(data) // 2]
    at = rng.choice(opens)
    depth = rng.choice([100, 5_000, 50_000])
    return data[:at] + b"[" * depth + b"]" * rng.choice([0, depth]) + data[at:]


def damage_header(data: bytes, rng: random.Random) -> bytes:
    return rng.choice([b"", b"\x00" * 8, b"%PDF-9.9\n", b"<html>"]) + data[rng.choice([0, 5, 9]) :]


MUTATIONS: list[Mutation] = [
    flip_bytes,
    truncate,
    break_xref,
    wrong_length,
    corrupt_streams,
    delete_range,
    duplicate_range,
    zero_range,
    break_keywords,
    insert_garbage,
    nest_arrays,
    damage_header,
]


# name endings for every third file, with what shells, terminals and catalogs trip on (<ff>: a byte not UTF-8)
ODD_NAMES = [" [bold]x[red] :smile:", " spaced ü 論文 $(x)", "-<ff>-not-utf8", "'quote\"d", " --help"]


def page_cuts(pdf: Path, starts: list[int], n_pages: int = 2) -> list[bytes]:
    """Small seeds: `n_pages` consecutive pages of a real PDF, from each start, re-written by pypdf."""
    reader = PdfReader(str(pdf))
    cuts = []
    for start in starts:
        writer = PdfWriter()
        for index in range(start, min(start + n_pages, len(reader.pages))):
            writer.add_page(reader.pages[index])
        buffer = BytesIO()
        writer.write(buffer)
        cuts.append(buffer.getvalue())
    return cuts


def mutants(seeds: list[bytes], count: int, folder: Path, seed: int = 10) -> Iterator[tuple[Path, str]]:
    """`count` mutated files written to `folder`: (path, the mutations applied), the same for the same seed."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        rng = random.Random(seed * 100_003 + number)
        data = seeds[(number // len(MUTATIONS)) % len(seeds)]  # every mutation meets every seed
        applied = [MUTATIONS[number % len(MUTATIONS)]]
        if rng.random() < 0.3:
            applied.append(rng.choice(MUTATIONS))
        for mutation in applied:
            data = mutation(data, rng) if data else data
        odd = ODD_NAMES[number // 3 % len(ODD_NAMES)] if number % 3 == 0 else ""
        name = f"{number:03d}-{'+'.join(m.__name__ for m in applied)}{odd}.pdf"
        path = folder / os.fsdecode(name.encode("utf-8").replace(b"<ff>", b"\xff"))
        path.write_bytes(data)
        yield path, "+".join(m.__name__ for m in applied)
