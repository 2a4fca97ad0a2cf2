"""The bundled demo corpus: 2,212 arXiv records on RL for LLM agents and two CC BY 4.0 ACL papers."""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).parent / "demo"
DEMO_METADATA = DEMO_DIR / "rl-for-llm-agents.jsonl.gz"
DEMO_PDFS = DEMO_DIR / "pdfs"
DEMO_VERSION = "4"  # 1: every record tagged with DEMO_TOPIC by hand; 2: topics by the assigner; 3: the PDFs
# re-chunked by PDF cleanup 5, and the shipped sentence vectors stored for papers an earlier load kept; 4: the PDFs
# re-chunked with their page marks (cleanup 6)
DEMO_TOPIC = "RL for LLM Agents"
