"""Build ingest/data/word_counts.txt.gz: lowercase word counts from arXiv titles and abstracts.

The counts are the unigram table `ingest.wordsplit` uses to restore spaces that PDF text extraction drops
("Tosustainsuchdeep" -> "To sustain such deep"). The source is the CC0 arXiv metadata snapshot in the
shared data folder (titles and abstracts of cs.AI/cs.CL/cs.IR papers); only words seen at least
`--min-count` times are kept, one "word count" pair a line, most frequent first.

    python scripts/build_word_counts.py /path/to/arxiv-...jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "ingest" / "data" / "word_counts.txt.gz"
_WORD = re.compile(r"[A-Za-z]+")


def count_words(source: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            text = f"{record.get('title') or ''} {record.get('abstract') or ''}"
            counts.update(w.lower() for w in _WORD.findall(text))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="arXiv metadata snapshot (.jsonl.gz, one record a line)")
    parser.add_argument("--min-count", type=int, default=5, help="drop words seen fewer times")
    args = parser.parse_args()
    counts = count_words(args.source)
    kept = [(w, n) for w, n in counts.most_common() if n >= args.min_count]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(OUT, "wt", encoding="utf-8", compresslevel=9) as fh:
        fh.writelines(f"{w} {n}\n" for w, n in kept)
    print(f"{len(kept):,} words (of {len(counts):,}) seen at least {args.min_count} times -> {OUT}")


if __name__ == "__main__":
    main()
