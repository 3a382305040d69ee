#!/usr/bin/env bash
# make neon-check: the arm64 (NEON) kernels of CResampleKernels and CMetricKernels compiled for
# aarch64 and run under qemu-user on this x86-64 machine, against the x86-64 kernel sets, on the
# cases of scripts/kernel-outputs.c. Correctness only: qemu says nothing about arm64 speed.
#
# 1. Warnings: every kernel source compiled for aarch64 with clang (the compiler SwiftPM uses)
#    and with GCC, -Wall -Wextra -Werror.
# 2. The reference: the harness on x86-64 at the portable resample set and the widest metric set
#    (AVX2 + FMA). Then every wider resample set this CPU has (AVX2, AVX-512BW, AVX-512 VNNI).
# 3. aarch64 (static, clang at -O0 and -O2: SwiftPM's debug and release) under qemu-aarch64-static
#    at level 2 (NEON) and at the portable level; a GCC -O2 build for the resampler's records.
#    Every value must be identical to the reference, floats bit for bit. (The metric's arm64
#    build contracts a·b + c into one fused multiply-add, as clang does by default and the x86-64
#    AVX2 + FMA set does too, so its floats match that set's, not the SSE2 baseline's.)
# 4. Mutants: copies of the kernels with one deliberate fault each in the NEON code (and one in
#    the metric) must each be caught, by a differing value or, for a read past a row that
#    changes no value, by the row's guard page stopping the run.
# Installs the cross toolchain and qemu through scripts/setup.sh (gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross for the C library and start files, qemu-user-static).
set -euo pipefail
cd "$(dirname "$0")/.."

EXTRA_PACKAGES="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static" bash scripts/setup.sh

CLANG=${CLANG:-clang}
OUT=.build-neon-check
mkdir -p "$OUT"
R=Sources/CResampleKernels
M=Sources/CMetricKernels
INCLUDES=(-I "$R/include" -I "$R" -I "$M/include")
KERNELS=("$R/resample_kernels.c" "$R/resample_rows4.c" "$M/metric_kernels.c")
WARNINGS=(-Wall -Wextra -Werror)
ARM=(--target=aarch64-linux-gnu -static)
QEMU=qemu-aarch64-static

echo "neon-check: aarch64 warnings (clang $("$CLANG" -dumpversion), $(aarch64-linux-gnu-gcc -dumpfullversion 2>/dev/null || echo gcc))"
for f in "${KERNELS[@]}"; do
  "$CLANG" "${ARM[@]}" -O2 "${WARNINGS[@]}" "${INCLUDES[@]}" -c "$f" -o /dev/null
  aarch64-linux-gnu-gcc -O2 "${WARNINGS[@]}" "${INCLUDES[@]}" -c "$f" -o /dev/null
done

HOST="$OUT/kernel-outputs-x86_64"
"$CLANG" -O2 "${WARNINGS[@]}" "${INCLUDES[@]}" scripts/kernel-outputs.c "${KERNELS[@]}" -o "$HOST" -lm
for o in O0 O2; do
  "$CLANG" "${ARM[@]}" -"$o" "${WARNINGS[@]}" "${INCLUDES[@]}" scripts/kernel-outputs.c "${KERNELS[@]}" -o "$OUT/kernel-outputs-aarch64-$o" -lm
done
# GCC honours no FP_CONTRACT pragma: contraction off by flag, so that the harness's inputs are the same.
aarch64-linux-gnu-gcc -static -O2 -ffp-contract=off "${WARNINGS[@]}" "${INCLUDES[@]}" scripts/kernel-outputs.c "${KERNELS[@]}" \
  -o "$OUT/kernel-outputs-aarch64-gcc" -lm

read -r host_resample host_metric <<<"$("$HOST" levels)"
arm_levels=$("$QEMU" "$OUT/kernel-outputs-aarch64-O2" levels)
if [ "$arm_levels" != "2 0" ]; then
  echo "neon-check: the aarch64 build reports kernel levels '$arm_levels', not '2 0' (NEON)" >&2
  exit 1
fi
capped=$(WEBIMAGE_RESAMPLE_KERNELS=portable "$QEMU" "$OUT/kernel-outputs-aarch64-O2" levels)
if [ "$capped" != "0 0" ]; then
  echo "neon-check: WEBIMAGE_RESAMPLE_KERNELS=portable leaves the aarch64 levels at '$capped'" >&2
  exit 1
fi
if [ "$host_metric" -lt 1 ]; then
  echo "neon-check: this CPU lacks AVX2 + FMA, the metric set the arm64 build is compared with; the metric's records are left out"
  METRIC_MODE=resample-only
else
  METRIC_MODE=
fi

REFERENCE="$OUT/x86_64-portable.bin"
"$HOST" run 0 "$host_metric" "$REFERENCE"
failed=0
# Runs one build at one level and compares it with the reference; its file is kept on failure.
check() {
  local name=$1 runner=$2 binary=$3 level=$4 metric=$5 mode=$6
  local file="$OUT/$name.bin"
  if ! $runner "$binary" run "$level" "$metric" "$file" >/dev/null; then
    echo "neon-check: the $name run stopped (a crash there is a read or write past a buffer's guard page)" >&2
    exit 1
  fi
  if "$HOST" compare "$REFERENCE" "$file" $mode; then rm -f "$file"; else failed=1; fi
}
names=([1]=avx2 [3]=avx512bw [4]=avx512vnni)
for level in 1 3 4; do
  if [ "$host_resample" -ge "$level" ]; then check "x86_64-${names[$level]}" "" "$HOST" "$level" "$host_metric" "$METRIC_MODE"; fi
done
for o in O0 O2; do
  check "aarch64-$o-neon" "$QEMU" "$OUT/kernel-outputs-aarch64-$o" 2 0 "$METRIC_MODE"
done
check "aarch64-O2-portable" "$QEMU" "$OUT/kernel-outputs-aarch64-O2" 0 0 "$METRIC_MODE"
# Built without contraction (and SwiftPM never builds with GCC), its metric floats are those of
# the SSE2 baseline rather than of the fused set: its resampler values must match.
check "aarch64-gcc-neon" "$QEMU" "$OUT/kernel-outputs-aarch64-gcc" 2 0 resample-only
if [ "$failed" -ne 0 ]; then
  echo "neon-check: FAILED: a kernel set differs from x86-64's portable C (files in $OUT)" >&2
  exit 1
fi

# Mutants: each deliberate fault must make the comparison fail.
MUTANTS=(
  "$R/resample_kernels.c|s/vmovn_s32(sum)/vqmovn_s32(sum)/|horizontal: saturate instead of keeping the low 16 bits"
  "$R/resample_kernels.c|s/if (k < n) {/if (0) {/|horizontal: drop an odd window's last tap"
  "$R/resample_kernels.c|s/start, k + 1)/start, k)/|horizontal: the first tap's weight for the second pixel"
  "$R/resample_kernels.c|s/checked = start + n;/checked = start + n + 1;/|horizontal: skip a pixel of the opacity check"
  "$R/resample_kernels.c|s/px = {q\[0\], q\[1\], q\[2\], q\[3\]};/px = vget_low_s16(vreinterpretq_s16_u16(vmovl_u8(vld1_u8(q))));/|horizontal: the same values, but eight bytes loaded for the last pixel (past the row)"
  "$R/resample_kernels.c|s/vget_high_s16(r1), w1)/vget_high_s16(r0), w1)/|vertical: the first row again for the second pixel"
  "$R/resample_kernels.c|s/vdupq_n_s32(128)/vdupq_n_s32(127)/|vertical: the offset"
  "$M/metric_kernels.c|s/load8(s + 4));/load8(s + 3));/|metric: the row blur's last tap"
)
mutant_dir="$OUT/mutant"
caught=0
for entry in "${MUTANTS[@]}"; do
  IFS='|' read -r source edit what <<<"$entry"
  if [ "$source" = "$M/metric_kernels.c" ] && [ -n "$METRIC_MODE" ]; then continue; fi
  rm -rf "$mutant_dir"
  mkdir -p "$mutant_dir"
  cp "${KERNELS[@]}" "$mutant_dir/"
  copy="$mutant_dir/$(basename "$source")"
  # The resampler's faults go into its NEON section only.
  if [ "$source" = "$R/resample_kernels.c" ]; then
    sed -i "/MARK: NEON/,/MARK: Dispatch/$edit" "$copy"
  else
    sed -i "$edit" "$copy"
  fi
  if cmp -s "$source" "$copy"; then
    echo "neon-check: mutant '$what' changed nothing (its pattern is stale)" >&2
    exit 1
  fi
  "$CLANG" "${ARM[@]}" -O2 "${INCLUDES[@]}" scripts/kernel-outputs.c "$mutant_dir"/*.c -o "$mutant_dir/kernel-outputs" -lm
  if ! "$QEMU" "$mutant_dir/kernel-outputs" run 2 0 "$mutant_dir/out.bin" >/dev/null 2>&1; then
    echo "neon-check: mutant caught: $what (the run stopped)"
  elif "$HOST" compare "$REFERENCE" "$mutant_dir/out.bin" $METRIC_MODE >"$mutant_dir/compare.txt"; then
    echo "neon-check: mutant '$what' was NOT caught" >&2
    exit 1
  else
    echo "neon-check: mutant caught: $what ($(tail -1 "$mutant_dir/compare.txt" | sed 's/.*values, //'))"
  fi
  caught=$((caught + 1))
done
rm -rf "$mutant_dir" "$REFERENCE"
echo "neon-check: ok: the aarch64 builds (NEON and portable, under qemu) and every x86-64 resample set here gave the same values as x86-64's portable resampler and fused-multiply-add metric; $caught mutants caught"
