"""Real demo records picked by id, for topic tests."""

from __future__ import annotations

import gzip
import json
from typing import Any

from papertalk.demo import DEMO_METADATA


def demo_records_by_id(ids: set[str]) -> list[dict[str, Any]]:
    """The demo corpus's records with these arXiv ids, in file order."""
    with gzip.open(DEMO_METADATA, "rt", encoding="utf-8") as fh:
        return [r for r in map(json.loads, fh) if r["id"] in ids]
