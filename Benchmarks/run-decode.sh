#!/usr/bin/env bash
# Decode benchmark (issue: foundation / SPEC C-3): swift-web-image vs the C libraries called
# directly vs Pillow vs libvips, on the same ~12 MP files, in one run, single-threaded.
# usage: Benchmarks/run-decode.sh [ITERATIONS] [ROUNDS]   (from the project root: `make bench`)
#
# The four contenders run interleaved, ROUNDS times each, ITERATIONS timed decodes per run after
# one warm-up; each figure is the lowest of its round medians (Benchmarks/python/run_decode.py).
# Two tables: wall clock, and process CPU time (steadier on a shared machine). Ours and the C
# floor print a hash of their output pixels: `same px` says whether they are identical.
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${1:-9}
ROUNDS=${2:-3}
DATA=.build-bench-data
CORPUS=${WEBIMAGE_CORPUS:-../shared/corpus}
export VIPS_CONCURRENCY=1

python3 Benchmarks/python/make_inputs.py "$CORPUS" "$DATA" >/dev/null
mkdir -p "$DATA/bin"
gcc -O2 -o "$DATA/bin/decode_bench" Benchmarks/c/decode_bench.c -lturbojpeg -lspng -lwebp -lavif -lheif -ljxl \
    $(pkg-config --cflags --libs libtiff-4 librsvg-2.0 poppler-glib) -lm
swift build -c release --product webimage-bench >"$DATA/build.log" 2>&1 || { cat "$DATA/build.log"; exit 1; }
BENCH=$(swift build -c release --show-bin-path)/webimage-bench
python3 Benchmarks/python/run_decode.py "$BENCH" "$DATA/bin/decode_bench" "$DATA" "$ITER" "$ROUNDS"
