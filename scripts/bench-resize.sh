#!/bin/sh
# Resize benchmark (SPEC T-3): Lanczos3, 12 MP → 400×300 and 2 MP → 512 px, RGB and RGBA with
# transparency, one thread, on the same pixels: our Resampler (AVX2/NEON kernels, and forced to
# the portable passes) against Pillow-SIMD (AVX2) and libvips 8.18 (pyvips-binary), CPU time per
# operation, medians, contenders interleaved (Benchmarks/python/resize_bench.py).
#
# Python side: scripts/resize-venv.sh (.build-resize-venv; builds pillow-simd with AVX2 the
# first time, a few minutes). Swift side: the package's webimage-resize-bench target, release.
#
# Usage (from the project root): sh scripts/bench-resize.sh [rounds] [ops per round]   (or: make bench-resize)
set -eu
ROUNDS=${1:-5}
OPS=${2:-5}
SWIFT=${SWIFT:-swift}
WORK=${TMPDIR:-/tmp}/webimage-bench-resize
CORPUS=${WEBIMAGE_CORPUS:-$(cd "$(dirname "$0")/../.." && pwd)/shared/corpus}

PYTHON=$(bash "$(dirname "$0")/resize-venv.sh")
# shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
"$SWIFT" build -c release --product webimage-resize-bench ${SWIFT_BUILD_FLAGS:-}
# shellcheck disable=SC2086
BENCH="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage-resize-bench"
"$PYTHON" "$(dirname "$0")/../Benchmarks/python/resize_bench.py" "$BENCH" "$CORPUS/sdwebimage/TestImageLarge.jpg" "$WORK" "$ROUNDS" "$OPS"
