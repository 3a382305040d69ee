#!/bin/sh
# The row-pair resize kernels (CResampleKernels/resample_rows4.c) under AddressSanitizer: their
# widest kernel set against their portable C over random shapes (Benchmarks/c/resample_kernels_asan.c).
# On a CPU without AVX-512 VBMI + VNNI both sides run the portable C.
# Usage (from the project root): sh scripts/asan-resample-kernels.sh
set -eu
OUT=${TMPDIR:-/tmp}/webimage-resample-kernels-asan
K=Sources/CResampleKernels
"${CC:-clang}" -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -I "$K/include" -I "$K" \
    Benchmarks/c/resample_kernels_asan.c "$K/resample_rows4.c" "$K/resample_kernels.c" -o "$OUT" -lm
"$OUT"
