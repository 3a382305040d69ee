#!/usr/bin/env bash
# `make bench-hdr` (SPEC H-3, H-6): a 12 MP Ultra HDR JPEG made by libultrahdr to a 500 px
# thumbnail — our CPU with the gain map, without it, and libvips 8.18's thumbnail, interleaved;
# then writing a gain-map JPEG from HDR pixels, ours against libultrahdr's encoder (interleaved),
# and the HDR-rendition PSNR of every output and our SDR base check (scripts/bench-hdr.py).
# Usage (from the project root): bash scripts/bench-hdr.sh [ROUNDS] [ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
ITERATIONS=${2:-3}
SWIFT=${SWIFT:-swift}
CORPUS=${WEBIMAGE_CORPUS:-$(cd .. && pwd)/shared/corpus}
PYTHON=$(bash scripts/python-venv.sh hdr-bench)
# shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
"$SWIFT" build -c release --product webimage-bench ${SWIFT_BUILD_FLAGS:-} >&2
# shellcheck disable=SC2086
BENCH="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage-bench"
"$PYTHON" scripts/bench-hdr.py "$BENCH" "$CORPUS" "${TMPDIR:-/tmp}/webimage-bench-hdr" "$ROUNDS" "$ITERATIONS"
