#!/usr/bin/env bash
# TIFF, SVG and PDF full decodes (docs/PERFORMANCE.md, "TIFF, SVG and PDF"): swift-web-image vs
# libtiff / librsvg / poppler-glib called directly (Benchmarks/c/decode_bench.c) vs libvips,
# single-threaded, in one run. Inputs are made here: the corpus' large JPEG photo written as an
# LZW and a JPEG-compressed TIFF by libtiff, and a generated SVG and PDF.
# usage: Benchmarks/run-decode-tiff-svg-pdf.sh [ITERATIONS] [ROUNDS]   (from the project root)
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${1:-7}
ROUNDS=${2:-3}
DATA=.build-bench-data
CORPUS=${WEBIMAGE_CORPUS:-../shared/corpus}
export VIPS_CONCURRENCY=1
mkdir -p "$DATA/bin" "$DATA/tsp"
gcc -O2 -o "$DATA/bin/decode_bench" Benchmarks/c/decode_bench.c -lturbojpeg -lspng -lwebp -lavif -lheif -ljxl \
    $(pkg-config --cflags --libs libtiff-4 librsvg-2.0 poppler-glib) -lm
"$DATA/bin/decode_bench" make-tiff "$CORPUS/sdwebimage/TestImageLarge.jpg" "$DATA/tsp/photo-lzw.tif" lzw
"$DATA/bin/decode_bench" make-tiff "$CORPUS/sdwebimage/TestImageLarge.jpg" "$DATA/tsp/photo-jpeg.tif" jpeg
python3 Benchmarks/python/make_vector_inputs.py "$DATA/tsp"
swift build -c release --product webimage-bench >"$DATA/build.log" 2>&1 || { cat "$DATA/build.log"; exit 1; }
BENCH=$(swift build -c release --show-bin-path)/webimage-bench
python3 Benchmarks/python/run_decode_files.py "$BENCH" "$DATA/bin/decode_bench" "$ITER" "$ROUNDS" \
    "tiff:$DATA/tsp/photo-lzw.tif" "tiff:$DATA/tsp/photo-jpeg.tif" "svg:$DATA/tsp/shapes.svg" "pdf:$DATA/tsp/paths.pdf"
