#!/usr/bin/env bash
# Decode benchmark (issue: foundation / SPEC C-3): swift-web-image vs the C libraries called
# directly vs Pillow vs libvips, on the same ~12 MP files, in one run, single-threaded.
# usage: Benchmarks/run-decode.sh [ITERATIONS]   (run from the project root: `make bench`)
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${1:-9}
DATA=.build-bench-data
CORPUS=${WEBIMAGE_CORPUS:-../shared/corpus}
export VIPS_CONCURRENCY=1

python3 Benchmarks/python/make_inputs.py "$CORPUS" "$DATA" >/dev/null
mkdir -p "$DATA/bin"
gcc -O2 -o "$DATA/bin/decode_bench" Benchmarks/c/decode_bench.c -lturbojpeg -lspng -lwebp
swift build -c release --product webimage-bench >/dev/null
BENCH=$(swift build -c release --show-bin-path)/webimage-bench

ms() { sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p'; }
printf '| input | mode | swift-web-image ms | C library ms | Pillow ms | libvips ms | MP/s (ours) | ours vs C (C/ours) | vs Pillow | vs libvips |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for pair in jpeg:jpg png:png webp:webp; do
  fmt=${pair%%:*}; ext=${pair##*:}
  file="$DATA/photo-12mp.$ext"
  for denom in 1 8; do
    ours=$("$BENCH" decode "$file" "$ITER" "$denom" | ms)
    c=$("$DATA/bin/decode_bench" "$fmt" "$file" "$ITER" "$denom" | ms)
    pil=$(python3 Benchmarks/python/peers.py pillow "$fmt" "$file" "$ITER" "$denom" | ms)
    vips=$(python3 Benchmarks/python/peers.py vips "$fmt" "$file" "$ITER" "$denom" | ms)
    mode=$([ "$denom" = 1 ] && echo full || echo "thumb 1/$denom")
    python3 - "$fmt" "$mode" "$ours" "$c" "$pil" "$vips" <<'PY'
import sys
fmt, mode, ours, c, pil, vips = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
mp = 12.193
print(f"| {fmt} 12 MP | {mode} | {ours:.1f} | {c:.1f} | {pil:.1f} | {vips:.1f} | {mp / ours * 1000:.0f} | {c / ours:.2f} | {pil / ours:.2f} | {vips / ours:.2f} |")
PY
  done
done
