#!/usr/bin/env bash
# `make bench-service` (issue #15, SPEC V-11; docs/PERFORMANCE.md "Service"): `webimage serve`
# against thumbor 7.8 on the same generated sources and tasks, interleaved in one run, with
# vipsthumbnail as the floor. Installs what it compares against, idempotently:
#   - wrk and libvips-tools (vipsthumbnail) through scripts/setup.sh;
#   - thumbor 7.8.0 from PyPI into the venv $BENCH_VENV (default .build-bench-venv, ignored by git).
# Then builds `webimage` (release) and runs Benchmarks/python/service_bench.py, which prints the
# table and writes it to $OUT (default .build-bench/service-results.md).
# Settings (environment): ROUNDS REQUESTS C4_REQUESTS WRK_SECONDS TASKS PROFILE UPDATE_DOC KEEP
# (see service_bench.py); SWIFT and SWIFT_BUILD_FLAGS as for the other targets.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SWIFT="${SWIFT:-swift}"
VENV="${BENCH_VENV:-$ROOT/.build-bench-venv}"
THUMBOR_VERSION=7.8.0

# Debian packages: wrk, vipsthumbnail (the floor), perf for PROFILE=1.
extra="wrk libvips-tools"
[ "${PROFILE:-0}" = 1 ] && extra+=" linux-perf"
# A Debian python3 needs python3-venv for `python3 -m venv`.
python3 -c 'import ensurepip, venv' 2>/dev/null || extra+=" python3-venv"
EXTRA_PACKAGES="$extra" bash scripts/setup.sh

# thumbor in its venv (it brings its own Pillow, used to generate the sources too).
THUMBOR_ERROR=""
if ! "$VENV/bin/python" -c "import sys, thumbor; sys.exit(thumbor.__version__ != '$THUMBOR_VERSION')" 2>/dev/null; then
  echo "bench-service: installing thumbor $THUMBOR_VERSION into $VENV" >&2
  log="$(mktemp)"
  if ! { python3 -m venv "$VENV" && timeout 1200 "$VENV/bin/pip" install -q "thumbor==$THUMBOR_VERSION"; } >"$log" 2>&1; then
    THUMBOR_ERROR="pip install thumbor==$THUMBOR_VERSION failed: $(tail -c 600 "$log" | tr '\n' ' ')"
    echo "bench-service: $THUMBOR_ERROR" >&2
  fi
  rm -f "$log"
fi
PY="$VENV/bin/python"
THUMBOR="$VENV/bin/thumbor"
if [ -n "$THUMBOR_ERROR" ] || ! "$PY" -c 'import thumbor' 2>/dev/null; then
  [ -n "$THUMBOR_ERROR" ] || THUMBOR_ERROR="thumbor does not import in $VENV"
  THUMBOR=""
  # Without the venv, the sources still need Pillow.
  [ -x "$PY" ] && "$PY" -c 'import PIL' 2>/dev/null || { PY=python3; python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow; }
fi

echo "bench-service: building webimage (release)" >&2
# shellcheck disable=SC2086
timeout 3600 "$SWIFT" build -c release --product webimage ${SWIFT_BUILD_FLAGS:-} >&2
BIN="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage"

export WEBIMAGE="$BIN" THUMBOR THUMBOR_ERROR
export BENCH_COMMAND="${BENCH_COMMAND:-make bench-service${ROUNDS:+ ROUNDS=$ROUNDS}${REQUESTS:+ REQUESTS=$REQUESTS}}"
exec timeout "${BENCH_TIMEOUT:-3600}" "$PY" Benchmarks/python/service_bench.py
