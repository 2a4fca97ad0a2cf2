#!/usr/bin/env bash
# Creates .venv (if missing) and installs papertalk with what it needs; safe to run again.
# Usage: scripts/setup.sh [extra ...]   e.g. scripts/setup.sh dev
#
# The install uses uv (the one on PATH, or one installed into .venv with pip): it downloads and installs
# the dependencies in parallel, about half pip's time on two cores. When uv cannot be had or fails, pip
# installs them as before.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv --without-pip .venv  # pip only if it is needed (below): creating it costs seconds
fi

venv_pip() {  # pip inside .venv, installed there first when the venv has none
  .venv/bin/python -m pip --version >/dev/null 2>&1 || .venv/bin/python -m ensurepip --upgrade >/dev/null
  .venv/bin/python -m pip "$@"
}

find_uv() {  # prints the uv to use, installing it into .venv when none is on PATH
  if command -v uv >/dev/null 2>&1; then
    command -v uv
    return
  fi
  if [ ! -x .venv/bin/uv ]; then
    python3 -m pip --python .venv/bin/python install --quiet uv >/dev/null 2>&1 \
      || venv_pip install --quiet uv >&2 \
      || return 1
  fi
  echo .venv/bin/uv
}

# Files are copied, not hard-linked from uv's cache (uv's default): nltk, which llama-index's sentence
# splitter uses, refuses to open a file with several links, so chunking would fail.
install_with_uv() {
  local uv
  uv="$(find_uv)" || return 1
  "$uv" pip install --quiet --link-mode=copy --python .venv/bin/python -e "$1"
}

stamp=".venv/.papertalk-installed-${extras:-base}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  spec="."
  [ -n "$extras" ] && spec=".[$extras]"
  if ! install_with_uv "$spec"; then
    echo "uv could not install papertalk; installing with pip instead (slower)…" >&2
    venv_pip install --quiet --upgrade pip
    venv_pip install --quiet -e "$spec"
  fi
  touch "$stamp"
fi
