#!/usr/bin/env bash
# The test suite: install papertalk with its test tools, then run pytest (offline, a few minutes).
# The browser tests (tests/web) drive Debian's chromium through chromedriver, and the scale-out tests
# (tests/scaleout, `-m scaleout`) start their own PostgreSQL from Debian's postgresql package; both are
# installed here when missing and this runs as root, and skipped with the reason otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
if { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing chromium and chromium-driver for the browser tests…"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium chromium-driver >/dev/null 2>&1; } \
    || echo "Could not install chromium: the browser tests will be skipped."
fi
if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing postgresql for the scale-out tests…"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q postgresql >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q postgresql >/dev/null 2>&1; } \
    || echo "Could not install postgresql: the scale-out tests will be skipped."
fi
# The fast suite runs in two worker processes (PAPERTALK_TEST_WORKERS=0 for one process), a test file
# per worker at a time; the long tests (`-m ...`) run one at a time, as they always have.
workers=(-n "${PAPERTALK_TEST_WORKERS:-2}" --dist loadfile)
case " $* " in *" -m "*) workers=() ;; esac
exec .venv/bin/python -m pytest "${workers[@]}" "$@"
