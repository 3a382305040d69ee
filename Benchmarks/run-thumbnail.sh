#!/usr/bin/env bash
# Thumbnail path benchmark (SPEC T-3, issue "Transformers"): decode with shrink-on-load, resize
# to fit 400x400 with a high-quality filter, encode JPEG q80 — swift-web-image vs Pillow vs
# libvips on the same 12 MP photo, in-process and single-threaded, in one run.
# usage (from the project root): bash Benchmarks/run-thumbnail.sh [ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${1:-15}
DATA=.build-bench-data
export VIPS_CONCURRENCY=1
python3 Benchmarks/python/make_inputs.py "${WEBIMAGE_CORPUS:-../shared/corpus}" "$DATA" >/dev/null
swift build -c release --product webimage-bench >/dev/null
BENCH=$(swift build -c release --show-bin-path)/webimage-bench
for file in "$DATA/photo-12mp.jpg" "$DATA/photo-12mp.png" "$DATA/photo-12mp.webp"; do
  echo "== $(basename "$file") -> fit 400x400, JPEG q80, $ITER runs"
  printf '  %-16s %s\n' "swift-web-image" "$("$BENCH" thumbnail "$file" "$ITER" 400)"
  printf '  %-16s %s\n' "Pillow" "$(python3 Benchmarks/python/thumbnail_peers.py pillow "$file" "$ITER" 400)"
  printf '  %-16s %s\n' "libvips" "$(python3 Benchmarks/python/thumbnail_peers.py vips "$file" "$ITER" 400)"
done
