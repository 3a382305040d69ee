#ifndef WEBIMAGE_RESAMPLE_KERNELS_H
#define WEBIMAGE_RESAMPLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// The widest kernel set this CPU runs: 0 none (the portable Swift passes), 1 AVX2 (x86-64,
/// checked at run time), 2 NEON (arm64, always present there), 3 AVX-512BW (x86-64, checked at
/// run time; the horizontal pass on 512-bit registers, the rest as AVX2). The environment
/// variable `WEBIMAGE_RESAMPLE_KERNELS=portable` makes it 0 and `=avx2` at most 1 (to compare,
/// or to rule the kernels out).
int wi_resample_kernels_level(void);

/// The horizontal fixed-point pass over one RGBA8 row, which also checks that the row is
/// opaque where it is read. Returns 1 when every pixel from the lowest `starts[i]` up to the
/// highest `starts[i] + counts[i]` has alpha 255, else 0 (then `out` is of no use: the row needs
/// the premultiplied path).
///
/// For each output `i` in `0..<outputs`: the sum over `k < counts[i]` of
/// `row[(starts[i] + k) * 4 + c] * wᵢ(k)` (exact, in `int32`), then
/// `((sum + (1 << (shift - 1))) >> shift) - offset` stored as `int16` at `out[i * 4 + c]`.
///
/// Weights: each output has `block_stride` blocks of 32 `int16` from
/// `weights + i * block_stride * 32`. Positions count from the output's even start
/// (`starts[i] & ~1`), so weight k sits at position `j = k + (starts[i] & 1)` and position 0 of
/// an odd start is zero; block `j / 8` holds positions 0…7 of its eight as
/// `[w0 w1 ×4 | w2 w3 ×4]` then `[w4 w5 ×4 | w6 w7 ×4]`. Positions past the taps are zero, and
/// `block_stride` covers `counts[i] + 1` positions for every output.
///
/// `scratch`: at least `(row_width + 16) * 4` `int16` (the kernels copy the row's last pixels
/// there, zero-padded, for windows that end near it). Pixels are read only inside
/// `row[0..<row_width]`.
///
/// `level`: the kernel set (`wi_resample_kernels_level()` or a lower one this CPU has; one it
/// lacks runs portable C).
int wi_resample_horizontal(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch, int16_t *out);

/// The vertical fixed-point pass: one output row of `width` RGBA8 pixels from `pair_count`
/// pairs of filtered rows (`rows[2t]`, `rows[2t + 1]`, `width * 4` `int16` each) and their
/// weights (`weights[8t]` and `weights[8t + 1]`: the layout of eight `int16` per pair):
/// `clamp(((sum + (1 << (shift - 1))) >> shift) + 128, 0, 255)`.
/// `level` as for `wi_resample_horizontal`.
void wi_resample_vertical(
    int level, const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out);

#endif
