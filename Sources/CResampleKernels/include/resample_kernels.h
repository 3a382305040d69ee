#ifndef WEBIMAGE_RESAMPLE_KERNELS_H
#define WEBIMAGE_RESAMPLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// The widest kernel set this CPU runs: 0 none (the portable Swift passes), 1 AVX2 (x86-64,
/// checked at run time), 2 NEON (arm64, always present there), 3 AVX-512BW (x86-64, checked at
/// run time; the horizontal pass on 512-bit registers, the rest as AVX2), 4 AVX-512BW with VBMI
/// and VNNI (Ice Lake and later: the opaque horizontal pass four outputs at a time, pixels
/// widened by one byte permutation, `vpdpwssd`; the rest as 3). The environment variable
/// `WEBIMAGE_RESAMPLE_KERNELS=portable` makes it 0, `=avx2` at most 1 and `=avx512bw` at most 3
/// (to compare, or to rule the kernels out).
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

/// `wi_resample_horizontal` with the weights packed and counted from a multiple of eight: each
/// output has `block_stride` blocks of eight `int16` from `weights + i * block_stride * 8`, its
/// weight k at position `j = k + (starts[i] & 7)`, zero at the positions before and past its
/// taps (`block_stride` covers `counts[i] + 7` positions for every output). Level 4 (AVX-512
/// VBMI + VNNI) widens the row's span once and runs four outputs at a time as `plan`
/// (`wi_resample_packed_plan` of the same `starts` and `counts`) groups them; the other levels
/// run portable C (level 3 and below run `wi_resample_horizontal` faster).
/// `scratch`: at least `(2 * row_width + 32) * 4` `int16`. Returns 0 as soon as the span is found
/// not opaque (then `out` is untouched). `next`: the row to be filtered next (`row_width` pixels),
/// or NULL; its span is prefetched into cache while this one is filtered (it is not read).
int wi_resample_horizontal_packed(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch,
    int16_t *out, const uint8_t *next);

/// `wi_resample_horizontal_packed` over two rows at once (`row0` into `out0`, `row1` into
/// `out1`; level 4 shares each weight load between them). Returns 1 when both are opaque over
/// the span, else 0 (then neither output is of use). `scratch`: at least
/// `(4 * row_width + 64) * 4` `int16`. `next`: the first of the two rows to be filtered after
/// `row1`, the second following it in memory (`row_width` pixels on), or NULL; both are
/// prefetched (a prefetch past the image is harmless).
int wi_resample_horizontal_packed2(
    int level, const uint8_t *row0, const uint8_t *row1, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts,
    const ptrdiff_t *counts, const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset,
    int16_t *scratch, int16_t *out0, int16_t *out1, const uint8_t *next);

/// The number of `int32` entries `wi_resample_packed_plan` writes for `outputs` outputs.
ptrdiff_t wi_resample_packed_plan_count(ptrdiff_t outputs);

/// Groups `outputs` outputs (`starts`, `counts` as for `wi_resample_horizontal`; each below
/// 2³¹) by four for `wi_resample_horizontal_packed`, once per table: the span they read, the
/// block of eight pixels each window starts in and how many blocks the longest spans.
void wi_resample_packed_plan(ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, int32_t *plan);

/// The horizontal fixed-point pass over one RGBA8 row that may have transparency, on
/// premultiplied values, emitting premultiplied floats in 0…255 units.
///
/// Each pixel of `row[span_start..<span_end]` (`span_start` even) is premultiplied exactly, as
/// the `int16` values `x·a − 32768` with `x` its red, green, blue and 255 for the alpha lane, and
/// laid out in `pairs` as neighbour pairs: pixels `2j` and `2j + 1` at `pairs[8j…8j + 7]` as
/// `[r r g g b b a a]`. Each output's sum is then exact in `int32` (`weights` as for
/// `wi_resample_horizontal`, with `32768 · Σ|w| < 2³¹` and the weights of each output adding up
/// to exactly `2^precision`), and `out[i * 4 + c]` is
/// `((float)sum + 32768 · 2^precision) · (1 / (255 · 2^precision))`.
///
/// `pairs`: at least `(row_width + 16) * 4` `int16`, all initialised (entries past the span are
/// read only under zero weights). Returns 1 when the loaded pixels all have alpha 255.
int wi_resample_horizontal_premultiplied(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t span_start, ptrdiff_t span_end, ptrdiff_t outputs,
    const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights, ptrdiff_t block_stride, int precision,
    int16_t *pairs, float *out);

/// `wi_resample_horizontal_premultiplied` emitting, instead of floats `v`, the `int16` values
/// `lrintf(v · 128) − 16384` (saturated) that `wi_resample_vertical_premultiplied` reads.
int wi_resample_horizontal_premultiplied16(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t span_start, ptrdiff_t span_end, ptrdiff_t outputs,
    const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights, ptrdiff_t block_stride, int precision,
    int16_t *pairs, int16_t *out);

/// `wi_resample_horizontal_premultiplied16` with the packed weights, `plan`, `scratch` and `next`
/// of `wi_resample_horizontal_packed`: level 4 premultiplies the blocks its groups read once,
/// in channel lanes, and runs four outputs at a time; the other levels run portable C (level 3
/// and below run `wi_resample_horizontal_premultiplied16` faster). The values are the same.
/// Returns whether the pixels of the span the outputs read all have alpha 255.
int wi_resample_horizontal_premultiplied16_packed(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int precision, int16_t *scratch, int16_t *out,
    const uint8_t *next);

/// `wi_resample_horizontal_premultiplied16_packed` over two rows at once (`row0` into `out0`,
/// `row1` into `out1`; level 4 shares each weight load between them), with the `scratch` and
/// `next` of `wi_resample_horizontal_packed2`. Returns whether both rows' spans are opaque.
int wi_resample_horizontal_premultiplied16_packed2(
    int level, const uint8_t *row0, const uint8_t *row1, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts,
    const ptrdiff_t *counts, const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int precision,
    int16_t *scratch, int16_t *out0, int16_t *out1, const uint8_t *next);

/// The vertical fixed-point pass over rows of `wi_resample_horizontal_premultiplied16`, as
/// `wi_resample_vertical` but with each pixel's sums taken as premultiplied floats,
/// `v = sum / 2^shift + 128`, and stored straight: transparent black when alpha is below 0.5,
/// else each colour times `255 / min(alpha, 255)`, plus 0.5, clamped to 0…255 and truncated.
void wi_resample_vertical_premultiplied(
    int level, const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out);

/// The vertical fixed-point pass: one output row of `width` RGBA8 pixels from `pair_count`
/// pairs of filtered rows (`rows[2t]`, `rows[2t + 1]`, `width * 4` `int16` each) and their
/// weights (`weights[8t]` and `weights[8t + 1]`: the layout of eight `int16` per pair):
/// `clamp(((sum + (1 << (shift - 1))) >> shift) + 128, 0, 255)`.
/// `level` as for `wi_resample_horizontal`.
void wi_resample_vertical(
    int level, const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out);

/// The `int16` entries of scratch `wi_resample_horizontal_rows4` needs for `plan`.
ptrdiff_t wi_resample_rows4_scratch_count(const int32_t *plan);

/// The horizontal pass of `wi_resample_horizontal_packed` over four opaque rows at once, into
/// two *pair rows*: `rows[0]` and `rows[1]` into `pairs0`, `rows[2]` and `rows[3]` into
/// `pairs1`. A pair row holds, for output `i` and channel `c` (red, green, blue), the two rows'
/// values side by side: `pairs[(i * 3 + c) * 2 + r]` is row `r`'s (the values
/// `wi_resample_horizontal_packed` makes, for weights whose magnitudes add up to at most
/// 2 · 2^(shift + 7), so that they fit `int16`: level 4 saturates larger ones, the portable C
/// keeps their low 16 bits; alpha is not computed). Level 4
/// (AVX-512 VBMI + VNNI) widens the four rows' spans once into blocks that hold one channel of
/// eight pixels of each row (one row per 128-bit lane), so each weight load serves twelve
/// multiply-adds and no lane is spent on alpha; the other levels run portable C.
///
/// Returns a mask of the rows that are opaque over the plan's span (bit `k` for `rows[k]`);
/// the values are made for every row all the same. `scratch`:
/// `wi_resample_rows4_scratch_count(plan)` `int16`. `next`: the four rows to be filtered next,
/// or NULL; their spans are prefetched into cache.
int wi_resample_horizontal_rows4(
    int level, const uint8_t *const *rows, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts,
    const ptrdiff_t *counts, const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset,
    int16_t *scratch, int16_t *pairs0, int16_t *pairs1, const uint8_t *const *next);

/// `wi_resample_vertical` over pair rows (`wi_resample_horizontal_rows4`): one output row of
/// `width` RGBA8 pixels from `pair_count` pair rows and one `int32` weight pair each (row 0's
/// `int16` weight in the low half, row 1's in the high half; zero for a row outside the
/// window): `clamp(((sum + (1 << (shift - 1))) >> shift) + 128, 0, 255)` for red, green and
/// blue, and alpha 255. The sums are those of `wi_resample_vertical` with the same weights, so
/// the pixels are the same.
void wi_resample_vertical_pairs(
    int level, const int16_t *const *pairs, const int32_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out);

/// `wi_resample_vertical_pairs` for two output rows from the same pair rows (`weights0` into
/// `out0`, `weights1` into `out1`; zero weights for the rows outside a window): level 4 loads
/// each pair row's values once for both.
void wi_resample_vertical_pairs2(
    int level, const int16_t *const *pairs, const int32_t *weights0, const int32_t *weights1, ptrdiff_t pair_count,
    ptrdiff_t width, int shift, uint8_t *out0, uint8_t *out1);

#endif
