#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of one decode, swift-web-image vs the C floor, on the
# benchmark inputs. Unlike timings these are stable on a shared, noisy machine.
# usage: Benchmarks/callgrind-decode.sh   (after Benchmarks/run-decode.sh built everything)
#
# Only the decode call is counted on each side (--toggle-collect): CodersManager.decode in the
# Swift harness, run_<format> in the C harness (minus its untimed output copy `keep`). Each
# harness decodes 3 times here (warm-up, 1 timed, 1 for the hash); the figure is per decode.
# Kernel time (page faults, munmap) is not an instruction and is not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=.build-bench-data
BENCH=$(swift build -c release --show-bin-path)/webimage-bench
OUT=${CALLGRIND_OUT:-/tmp/webimage-callgrind}
mkdir -p "$OUT"
SWIFT_DECODE='$s12WebImageCore13CodersManagerC6decode_7options*'

total() {  # inclusive Ir of the toggled functions, minus the C harness's untimed `keep`
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | python3 -c '
import re, sys
total = keep = 0
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) .*PROGRAM TOTALS", line)
    if m: total = int(m.group(1).replace(",", ""))
    m = re.match(r"\s*([\d,]+) \(.*\)\s+\S*:keep ", line)
    if m: keep = int(m.group(1).replace(",", ""))
print(total - keep)'
}

printf '| input | mode | ours Ir/decode | C Ir/decode | ours / C |\n|---|---|---|---|---|\n'
for pair in jpeg:jpg png:png webp:webp; do
  fmt=${pair%%:*}; ext=${pair##*:}
  file="$DATA/photo-12mp.$ext"
  for denom in 1 8; do
    mode=$([ "$denom" = 1 ] && echo full || echo "thumb 1/$denom")
    if ! "$BENCH" decode "$file" 1 "$denom" >/dev/null 2>&1; then
      echo "| $fmt | $mode | n/a | n/a | n/a |"; continue
    fi
    valgrind --tool=callgrind --toggle-collect="$SWIFT_DECODE" --callgrind-out-file="$OUT/ours-$fmt-$denom.out" \
      "$BENCH" decode "$file" 1 "$denom" >/dev/null 2>&1
    valgrind --tool=callgrind --toggle-collect="run_$fmt" --callgrind-out-file="$OUT/c-$fmt-$denom.out" \
      "$DATA/bin/decode_bench" "$fmt" "$file" 1 "$denom" >/dev/null 2>&1
    ours=$(total "$OUT/ours-$fmt-$denom.out"); c=$(total "$OUT/c-$fmt-$denom.out")
    python3 -c "o, c = $ours / 3, $c / 3; print(f'| $fmt | $mode | {o / 1e6:,.1f} M | {c / 1e6:,.1f} M | {o / c:.3f} |')"
  done
done
