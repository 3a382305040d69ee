#!/bin/sh
# Instruction counts (valgrind callgrind) of one Lanczos3 resize on the inputs of
# `make bench-resize`: our Resampler (its AVX2 kernels: valgrind hides AVX-512 from the CPU
# check; and the portable passes), Pillow-SIMD (AVX2) and libvips (pyvips-binary). Unlike
# timings these are stable on a shared, noisy machine.
#
# Each contender runs twice under callgrind, with N and N + 1 resizes of the same pixels; the
# difference of the two totals is one resize, without process start, loading or warm-up.
#
# Usage (from the project root, after scripts/bench-resize.sh made the inputs and the venv):
#   sh scripts/callgrind-resize.sh        (or: make bench-callgrind-resize)
set -eu
SWIFT=${SWIFT:-swift}
WORK=${TMPDIR:-/tmp}/webimage-bench-resize
OUT=${CALLGRIND_OUT:-${TMPDIR:-/tmp}/webimage-callgrind-resize}
mkdir -p "$OUT"
PYTHON=$(bash "$(dirname "$0")/resize-venv.sh")
# shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
BENCH="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage-resize-bench"

# The instructions (Ir) one run counted.
count() {  # name, then the command
  name=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.out" "$@" >/dev/null 2>&1
  sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$OUT/$name.out" | head -n 1
}

# One resize of `case` by `contender`, in instructions: (N+1 resizes) − (N resizes).
per_op() {  # contender, raw file, width, height, out width, out height, bands
  c=$1 file=$2 w=$3 h=$4 ow=$5 oh=$6 bands=$7
  for n in 1 2; do
    case $c in
      ours) eval "ir$n=\$(count ours-$n-$w-$bands \"\$BENCH\" \"\$file\" $w $h $ow $oh lanczos3 $n 1)" ;;
      portable) eval "ir$n=\$(WEBIMAGE_RESAMPLE_KERNELS=portable count portable-$n-$w-$bands \"\$BENCH\" \"\$file\" $w $h $ow $oh lanczos3 $n 1)" ;;
      pillow) eval "ir$n=\$(count pillow-$n-$w-$bands \"\$PYTHON\" -c \"
from PIL import Image
raw = open('$file', 'rb').read()
im = Image.frombytes('RGBA', ($w, $h), raw)
im = im if $bands == 4 else im.convert('RGB')
for _ in range($n): im.resize(($ow, $oh), Image.Resampling.LANCZOS)
\")" ;;
      libvips) eval "ir$n=\$(count libvips-$n-$w-$bands \"\$PYTHON\" -c \"
import pyvips
pyvips.cache_set_max(0)
pyvips.concurrency_set(1)
raw = open('$file', 'rb').read()
v = pyvips.Image.new_from_memory(raw, $w, $h, 4, 'uchar')
v = v if $bands == 4 else v.extract_band(0, n=3)
v = pyvips.Image.new_from_memory(v.write_to_memory(), $w, $h, $bands, 'uchar')
for _ in range($n):
    r = v.premultiply() if $bands == 4 else v
    r = r.resize($ow / $w, vscale=$oh / $h, kernel='lanczos3', gap=0)
    r = r.unpremultiply().cast('uchar') if $bands == 4 else r
    r.write_to_memory()
\")" ;;
    esac
  done
  # shellcheck disable=SC2154 # ir1, ir2 are set by eval
  echo $((ir2 - ir1))
}

printf '| case | ours (AVX2) | ours portable | Pillow-SIMD | libvips | Pillow-SIMD ÷ ours | libvips ÷ ours |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
for spec in "12 MP → 400×300:4000:3000:400:300" "2 MP → 512 px:1732:1155:512:341"; do
  label=${spec%%:*}
  IFS=: read -r _ w h ow oh <<EOF
$spec
EOF
  for alpha in RGB RGBA; do
    bands=$([ $alpha = RGB ] && echo 3 || echo 4)
    file="$WORK/${w}x${h}-$alpha.rgba"
    [ -f "$file" ] || { echo "no $file: run scripts/bench-resize.sh first" >&2; exit 1; }
    o=$(per_op ours "$file" "$w" "$h" "$ow" "$oh" "$bands")
    p=$(per_op portable "$file" "$w" "$h" "$ow" "$oh" "$bands")
    s=$(per_op pillow "$file" "$w" "$h" "$ow" "$oh" "$bands")
    v=$(per_op libvips "$file" "$w" "$h" "$ow" "$oh" "$bands")
    awk -v l="$label $alpha" -v o="$o" -v p="$p" -v s="$s" -v v="$v" 'BEGIN {
      printf "| %s | %.1f M | %.1f M | %.1f M | %.1f M | %.2f× | %.2f× |\n", l, o / 1e6, p / 1e6, s / 1e6, v / 1e6, s / o, v / o }'
  done
done
