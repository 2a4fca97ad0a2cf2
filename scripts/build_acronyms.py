"""Builds papertalk/data/acronyms.json: the long form the arXiv abstracts give each acronym they define.

Every title and abstract of the shared arXiv metadata file (CC0), as papertalk's reader gives them
(`ingest.sources.arxiv_papers`), is read with `assistant.acronyms.definitions` ("Group Relative Policy
Optimization (GRPO)" → GRPO: group relative policy optimization); an acronym is kept when at least MIN_ABSTRACTS
abstracts define it and at least SHARE of them give it the same long form, which is the one stored. Ambiguous
acronyms (one set of letters, many meanings) are left out rather than guessed.

    PAPERTALK_SHARED=/path/to/shared python scripts/build_acronyms.py [ARXIV.jsonl.gz] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.acronyms import GLOSSARY, definitions  # noqa: E402
from bench.common import shared_dir  # noqa: E402
from ingest.sources import arxiv_papers  # noqa: E402
from storage.records import Paper  # noqa: E402

DEFAULT_INPUT = shared_dir() / "data" / "arxiv" / "arxiv-cs-ai-cl-ir-2024-12-to-2026-08.jsonl.gz"
MIN_ABSTRACTS = 3
SHARE = 0.6


def count(path: Path) -> dict[str, Counter[str]]:
    """acronym → long form → abstracts defining it so (one vote per abstract)."""
    out: dict[str, Counter[str]] = {}
    for paper in arxiv_papers(path):
        if not isinstance(paper, Paper):  # a record papertalk would not ingest either
            continue
        text = " ".join(f"{paper.title or ''}. {paper.abstract or ''}".split())
        for acronym, form in set(definitions(text)):
            out.setdefault(acronym, Counter())[form] += 1
    return out


def agreed(counts: dict[str, Counter[str]]) -> dict[str, str]:
    kept = {}
    for acronym, forms in sorted(counts.items()):
        total = sum(forms.values())
        form, n = forms.most_common(1)[0]
        if total >= MIN_ABSTRACTS and n >= SHARE * total:
            kept[acronym] = form
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", nargs="?", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--out", type=Path, default=GLOSSARY)
    args = parser.parse_args()
    counts = count(args.input)
    kept = agreed(counts)
    args.out.write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"{len(kept)} of {len(counts)} acronyms kept (defined by at least {MIN_ABSTRACTS} abstracts, "
        f"{SHARE:.0%} of them alike) → {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
