"""Builds papertalk/data/entities.json: how the arXiv abstracts describe each named method, dataset, benchmark.

Every abstract of the shared arXiv metadata file is read with `assistant.entities.evidence` (head nouns, lists,
appositions, long forms); a name is kept when at least MIN_MENTIONS descriptions name its kind. The file maps
a name to {kind: number of abstracts that describe it so}.

    PAPERTALK_SHARED=/path/to/shared python scripts/build_entity_vocab.py [ARXIV.jsonl.gz] [--out FILE]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.entities import VOCABULARY, evidence, generic  # noqa: E402
from bench.common import shared_dir  # noqa: E402

DEFAULT_INPUT = shared_dir() / "data" / "arxiv" / "arxiv-cs-ai-cl-ir-2024-12-to-2026-08.jsonl.gz"
MIN_MENTIONS = 3


def count(path: Path) -> dict[str, Counter[str]]:
    """name → kind → abstracts describing it so (one vote per abstract and kind)."""
    out: dict[str, Counter[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            text = f"{record.get('title') or ''}. {record.get('abstract') or ''}"
            for name, kind in set(evidence(" ".join(text.split()))):
                if not generic(name):
                    out.setdefault(name, Counter())[kind] += 1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", nargs="?", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--out", type=Path, default=VOCABULARY)
    args = parser.parse_args()
    counts = count(args.input)
    kept = {n: dict(c.most_common()) for n, c in sorted(counts.items()) if sum(c.values()) >= MIN_MENTIONS}
    args.out.write_text(json.dumps(kept, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(kept)} of {len(counts)} names kept (at least {MIN_MENTIONS} descriptions) → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
