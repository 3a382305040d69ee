#!/usr/bin/env bash
# `make bench-service` (issue #15, SPEC V-11; docs/PERFORMANCE.md "Service"): `webimage serve`
# against thumbor 7.8 on the same generated sources and tasks, interleaved in one run, with
# vipsthumbnail as the floor. Installs what it compares against, idempotently:
#   - wrk and libvips-tools (vipsthumbnail) through scripts/setup.sh;
#   - thumbor 7.8.0 from PyPI into the venv $BENCH_VENV (default .build-bench-venv, ignored by git);
#   - gcc, to build the floor programs Benchmarks/c/decode_bench.c and encode_floor.c (the codec
#     libraries called directly) into .build-bench/bin; the floor's resample is our Resampler
#     called directly (webimage-resize-bench, built with webimage; RESIZE_BENCH=PATH otherwise).
# Then builds `webimage` (release; WEBIMAGE=PATH uses that binary instead, no build) and runs
# Benchmarks/python/service_bench.py, which prints the tables and writes them to $OUT (default
# .build-bench/service-results.md).
# Settings (environment): ROUNDS REQUESTS C4_REQUESTS WRK_SECONDS TASKS SECTIONS FLOOR_ITERATIONS
# SCALE_ROUNDS SCALE_REQUESTS PROFILE UPDATE_DOC KEEP WEBIMAGE_BASE ORIGIN_ETAG (see service_bench.py); SWIFT and
# SWIFT_BUILD_FLAGS as for the other targets.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SWIFT="${SWIFT:-swift}"
VENV="${BENCH_VENV:-$ROOT/.build-bench-venv}"
THUMBOR_VERSION=7.8.0

# Debian packages: wrk, vipsthumbnail (a floor), gcc and the C library headers for the floor
# programs (the codec -dev packages come with setup.sh), perf for PROFILE=1.
extra="wrk libvips-tools gcc libc6-dev"
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

# The floor programs: the codec libraries called directly (service_floor.py). A failed build is
# reported in the results, not fatal.
FLOOR_ERROR=""
DECODE_BENCH="$ROOT/.build-bench/bin/decode_bench"
ENCODE_FLOOR="$ROOT/.build-bench/bin/encode_floor"
mkdir -p "$ROOT/.build-bench/bin"
log="$(mktemp)"
# shellcheck disable=SC2046
if ! { gcc -O2 -o "$DECODE_BENCH" Benchmarks/c/decode_bench.c -lturbojpeg -lspng -lwebp -lavif -lheif -ljxl \
         $(pkg-config --cflags --libs libtiff-4 librsvg-2.0 poppler-glib) -lm &&
       gcc -O2 -Wall -o "$ENCODE_FLOOR" Benchmarks/c/encode_floor.c -lturbojpeg -lwebp -lavif; } >"$log" 2>&1; then
  FLOOR_ERROR="building Benchmarks/c failed: $(tail -c 400 "$log" | tr '\n' ' ')"
  echo "bench-service: $FLOOR_ERROR" >&2
  DECODE_BENCH="" ENCODE_FLOOR=""
fi
rm -f "$log"

if [ -n "${WEBIMAGE:-}" ]; then
  BIN="$WEBIMAGE"
  echo "bench-service: using $BIN (WEBIMAGE; not rebuilt)" >&2
  # The floor's resample: RESIZE_BENCH, or the one built next to WEBIMAGE.
  RESIZE_BENCH="${RESIZE_BENCH:-$(dirname "$BIN")/webimage-resize-bench}"
else
  echo "bench-service: building webimage and webimage-resize-bench (release)" >&2
  # shellcheck disable=SC2086
  timeout 3600 "$SWIFT" build -c release --product webimage ${SWIFT_BUILD_FLAGS:-} >&2
  # shellcheck disable=SC2086
  timeout 3600 "$SWIFT" build -c release --product webimage-resize-bench ${SWIFT_BUILD_FLAGS:-} >&2 ||
    echo "bench-service: webimage-resize-bench did not build: the floor has no resample step" >&2
  BINDIR="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})"
  BIN="$BINDIR/webimage"
  RESIZE_BENCH="${RESIZE_BENCH:-$BINDIR/webimage-resize-bench}"
fi
[ -x "$RESIZE_BENCH" ] || RESIZE_BENCH=""

export WEBIMAGE="$BIN" RESIZE_BENCH THUMBOR THUMBOR_ERROR DECODE_BENCH ENCODE_FLOOR FLOOR_ERROR
export BENCH_COMMAND="${BENCH_COMMAND:-make bench-service${ROUNDS:+ ROUNDS=$ROUNDS}${REQUESTS:+ REQUESTS=$REQUESTS}${SECTIONS:+ SECTIONS=$SECTIONS}}"
exec timeout "${BENCH_TIMEOUT:-3600}" "$PY" Benchmarks/python/service_bench.py
