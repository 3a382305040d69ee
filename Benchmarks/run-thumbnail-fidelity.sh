#!/usr/bin/env bash
# Thumbnail fidelity and time (issue #13, item 17): `webimage convert --thumbnail 400` vs
# `vipsthumbnail -s 400x300` on the 12 MP corpus photo, in one run; both scored by PSNR against
# Pillow's full-resolution Lanczos resize to 400×300. Needs `make bench-setup` (Pillow,
# libvips-tools) and a release build of the tool (built here into .build-release).
# usage (from the project root): bash Benchmarks/run-thumbnail-fidelity.sh [RUNS] [BOX]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-15}
BOX=${2:-400}
DATA=.build-bench-data
python3 Benchmarks/python/make_inputs.py "${WEBIMAGE_CORPUS:-../shared/corpus}" "$DATA" >/dev/null
swift build -c release --product webimage --scratch-path .build-release >/dev/null
WEBIMAGE=$(swift build -c release --scratch-path .build-release --show-bin-path)/webimage
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "== $DATA/photo-12mp.jpg -> fit ${BOX}x${BOX}, PNG out, $RUNS runs each (whole processes, alternating)"
python3 Benchmarks/python/thumbnail_fidelity.py "$WEBIMAGE" "$DATA/photo-12mp.jpg" "$BOX" "$RUNS" "$OUT"
