"""Parsing a PDF loads the chunker's sentence tokenizer in the background, in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import S2ORC_PDF

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, sys
import llama_index.core.utils as utils
from ingest.parse_worker import parse_isolated
before = "nltk" in sys.modules or utils.globals_helper._punkt_tokenizer is not None
paper = parse_isolated(__import__("pathlib").Path(sys.argv[1]))
import ingest.chunking as chunking
threads = chunking.warm_up.cache_info().currsize  # 1 once the parser started it
chunking.warm_up().join(300)
loaded = utils.globals_helper._punkt_tokenizer is not None
from papertalk.settings import Settings
chunks = chunking.Chunker(Settings(_env_file=None).chunking).chunk(paper, "0123456789")
print(json.dumps({"before": before, "threads": threads, "loaded": loaded, "chunks": len(chunks)}))
"""


def test_parsing_a_pdf_loads_the_sentence_tokenizer_in_the_background() -> None:
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(S2ORC_PDF)], capture_output=True, text=True, env=env, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["before"] is False  # nothing had loaded it: the parser's warm-up did
    assert seen["threads"] == 1 and seen["loaded"] is True
    assert seen["chunks"] > 20
