#!/usr/bin/env bash
# Retakes docs/screenshots/ on the full demo corpus: loads it with `papertalk demo --load-only` into a
# temporary data directory, builds the demo topic's cited overview, then runs the browser tests that take
# the screenshots (headless Chromium, tests/web) over a copy of that store.
# Usage: scripts/screenshots.sh [data-dir]   (an existing demo store to reuse instead of loading one)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
data="${1:-}"
if [ -z "$data" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  data="$tmp/data"
fi
export PAPERTALK_DATA_DIR="$data"
.venv/bin/papertalk demo --load-only
.venv/bin/papertalk overview "RL for LLM Agents"
WEB_DATA_DIR="$data" WEB_SCREENSHOTS=docs/screenshots .venv/bin/python -m pytest tests/web/test_pages.py -m slow \
  -k "topic_page_shows or streams_a_cited_answer or upload_a_pdf or phone_width" -p no:cacheprovider
