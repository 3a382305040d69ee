#!/usr/bin/env bash
# AVIF, HEIF and JPEG XL full decodes (docs/PERFORMANCE.md, "AVIF, HEIF and JPEG XL"):
# swift-web-image vs libavif / libheif / libjxl called directly vs libvips, on the corpus' photos,
# single-threaded, in one run.
# usage: Benchmarks/run-decode-newer-formats.sh [ITERATIONS] [ROUNDS]   (from the project root)
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${1:-9}
ROUNDS=${2:-3}
DATA=.build-bench-data
CORPUS=${WEBIMAGE_CORPUS:-../shared/corpus}
export VIPS_CONCURRENCY=1
mkdir -p "$DATA/bin"
gcc -O2 -o "$DATA/bin/decode_bench" Benchmarks/c/decode_bench.c -lturbojpeg -lspng -lwebp -lavif -lheif -ljxl \
    $(pkg-config --cflags --libs libtiff-4 librsvg-2.0 poppler-glib) -lm
swift build -c release --product webimage-bench >"$DATA/build.log" 2>&1 || { cat "$DATA/build.log"; exit 1; }
BENCH=$(swift build -c release --show-bin-path)/webimage-bench
python3 Benchmarks/python/run_decode_files.py "$BENCH" "$DATA/bin/decode_bench" "$ITER" "$ROUNDS" \
    "heif:$CORPUS/sdwebimage/TestImage.heic" "heif:$CORPUS/sdwebimage/TestHDR.heic" \
    "avif:$CORPUS/sdwebimage/TestHDR.avif" "jxl:$CORPUS/sdwebimage/TestHDR.jxl"
