#!/usr/bin/env bash
# Creates .venv (if missing) and installs papertalk with what it needs; safe to run again.
# Usage: scripts/setup.sh [extra ...]   e.g. scripts/setup.sh dev
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=".venv/.papertalk-installed-${extras:-base}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  spec="."
  [ -n "$extras" ] && spec=".[$extras]"
  .venv/bin/python -m pip install --quiet -e "$spec"
  touch "$stamp"
fi
