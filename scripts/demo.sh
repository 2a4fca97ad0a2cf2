#!/usr/bin/env bash
# The main job: install papertalk, load the bundled demo corpus on first run, then start papertalk.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/papertalk demo "$@"
