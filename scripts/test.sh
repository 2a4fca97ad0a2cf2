#!/usr/bin/env bash
# The test suite: install papertalk with its test tools, then run pytest (offline, a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
exec .venv/bin/python -m pytest "$@"
