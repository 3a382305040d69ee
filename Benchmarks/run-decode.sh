#!/usr/bin/env bash
# Decode benchmark (issue: foundation / SPEC C-3): swift-web-image vs the C libraries called
# directly vs Pillow vs libvips, on the same ~12 MP files, in one run, single-threaded.
# usage: Benchmarks/run-decode.sh [ITERATIONS] [ROUNDS]   (from the project root: `make bench`)
#
# Ours and the C floor run ROUNDS times each, alternating (ours, C, C, ours, …), ITERATIONS
# timed decodes per run after one warm-up; each side's figure is the lowest of its run medians,
# which keeps a burst of load from another process out of one side only. Both print a hash of
# their output pixels: the `same px` column says whether they produced identical pixels.
# Pillow and libvips run once each (ITERATIONS decodes, median).
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${1:-9}
ROUNDS=${2:-3}
DATA=.build-bench-data
CORPUS=${WEBIMAGE_CORPUS:-../shared/corpus}
export VIPS_CONCURRENCY=1

python3 Benchmarks/python/make_inputs.py "$CORPUS" "$DATA" >/dev/null
mkdir -p "$DATA/bin"
gcc -O2 -o "$DATA/bin/decode_bench" Benchmarks/c/decode_bench.c -lturbojpeg -lspng -lwebp
swift build -c release --product webimage-bench >/dev/null
BENCH=$(swift build -c release --show-bin-path)/webimage-bench

field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
# run_ours / run_c: one run (ITER timed decodes); keep the lowest median and the output hash.
best_ours=""; best_c=""; hash_ours=""; hash_c=""
run_ours() {
  local out; out=$("$BENCH" decode "$file" "$ITER" "$denom" 2>&1) || { best_ours="n/a"; return; }
  local m; m=$(echo "$out" | field median_ms); hash_ours=$(echo "$out" | field fnv)
  if [ -z "$best_ours" ] || python3 -c "import sys; sys.exit(0 if $m < $best_ours else 1)"; then best_ours=$m; fi
}
run_c() {
  local out; out=$("$DATA/bin/decode_bench" "$fmt" "$file" "$ITER" "$denom")
  local m; m=$(echo "$out" | field median_ms); hash_c=$(echo "$out" | field fnv)
  if [ -z "$best_c" ] || python3 -c "import sys; sys.exit(0 if $m < $best_c else 1)"; then best_c=$m; fi
}

printf '| input | mode | swift-web-image ms | C library ms | Pillow ms | libvips ms | MP/s (ours) | ours vs C (C/ours) | vs Pillow | vs libvips | same px |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for pair in jpeg:jpg png:png webp:webp; do
  fmt=${pair%%:*}; ext=${pair##*:}
  file="$DATA/photo-12mp.$ext"
  for denom in 1 8; do
    best_ours=""; best_c=""; hash_ours=""; hash_c=""
    for ((r = 0; r < ROUNDS; r++)); do
      if ((r % 2 == 0)); then run_ours; run_c; else run_c; run_ours; fi
      [ "$best_ours" = "n/a" ] && break
    done
    pil=$(python3 Benchmarks/python/peers.py pillow "$fmt" "$file" "$ITER" "$denom" | field median_ms)
    vips=$(python3 Benchmarks/python/peers.py vips "$fmt" "$file" "$ITER" "$denom" | field median_ms)
    mode=$([ "$denom" = 1 ] && echo full || echo "thumb 1/$denom")
    same=$([ -n "$hash_ours" ] && [ "$hash_ours" = "$hash_c" ] && echo yes || echo no)
    python3 - "$fmt" "$mode" "$best_ours" "$best_c" "$pil" "$vips" "$same" <<'PY'
import sys
fmt, mode, ours, c, pil, vips, same = sys.argv[1:]
c, pil, vips = float(c), float(pil), float(vips)
mp = 4032 * 3024 / 1e6
if ours == "n/a":  # no coder for this format in this build
    print(f"| {fmt} 12 MP | {mode} | n/a | {c:.1f} | {pil:.1f} | {vips:.1f} | n/a | n/a | n/a | n/a | n/a |")
else:
    ours = float(ours)
    print(f"| {fmt} 12 MP | {mode} | {ours:.1f} | {c:.1f} | {pil:.1f} | {vips:.1f} | {mp / ours * 1000:.0f} "
          f"| {c / ours:.2f} | {pil / ours:.2f} | {vips / ours:.2f} | {same} |")
PY
  done
done
