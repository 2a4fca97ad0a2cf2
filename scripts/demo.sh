#!/usr/bin/env bash
# The main job: install papertalk, load the bundled demo corpus on first run, then start papertalk.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# uv (scripts/setup.sh) compiles no bytecode at install as pip does, and compiling all of it costs more than the
# whole first run saves; so Python may write the bytecode of what papertalk imports as it goes, even where
# PYTHONDONTWRITEBYTECODE is set, or each later start (and the PDF worker, the server) compiles it again.
exec env -u PYTHONDONTWRITEBYTECODE .venv/bin/papertalk demo "$@"
