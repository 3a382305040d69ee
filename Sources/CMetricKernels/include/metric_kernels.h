#ifndef WEBIMAGE_METRIC_KERNELS_H
#define WEBIMAGE_METRIC_KERNELS_H

#include <stddef.h>

/// The kernel set SSIMULACRA2's row loops run on this CPU: 0 the baseline (SSE2 on x86-64,
/// NEON on arm64), 1 AVX2 with FMA (x86-64, checked at run time). The environment variable
/// `WEBIMAGE_METRIC_KERNELS=portable` makes it 0 (to compare, or to rule the wide set out).
int wi_ssim2_kernels_level(void);

/// Linear RGB rows to the metric's rescaled XYB rows: `count` pixels, a multiple of 8.
void wi_ssim2_xyb(
    int level, const float *r, const float *g, const float *b, ptrdiff_t count, float *x, float *y, float *bo);

/// The five row blurs of one channel of one row: `a` (reference) and `b` (distorted), each
/// readable and zero for 8 floats before index 0 and after index `count - 1` (`count` a multiple
/// of 8), blurred along the row with the symmetric 9 taps `taps[0…4]` (offset 0…4) into `out[0]`
/// (a), `out[1]` (b), `out[2]` (a²), `out[3]` (b²), `out[4]` (a·b), `count` floats each.
/// `scratch`: `3 * (count + 16)` floats for the products.
void wi_ssim2_row_blurs(
    int level, const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out);

/// The row blurs a prepared reference leaves to each candidate: `b` (distorted), `b²` and `a·b`
/// into `out[0]`, `out[1]`, `out[2]`; otherwise as `wi_ssim2_row_blurs`. `scratch`:
/// `2 * (count + 16)` floats.
void wi_ssim2_row_blurs_distorted(
    int level, const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out);

/// The row blurs of the reference alone: `a` and `a²` into `out[0]` and `out[1]`. `scratch`:
/// `count + 16` floats.
void wi_ssim2_row_blurs_reference(
    int level, const float *a, ptrdiff_t count, const float *taps, float *scratch, float *const *out);

/// The column blur of `quantities` row-blurred quantities at one output row: `rows` holds 9 row
/// pointers per quantity (offsets −4…4, rows outside the image pointing at zeros); the result
/// of quantity `q` goes to `out[q]`, `count` floats (a multiple of 8).
void wi_ssim2_column_blurs(
    int level, const float *const *rows, int quantities, ptrdiff_t count, const float *taps, float *const *out);

/// One output row of SSIMULACRA2's maps, summed: `sums[0…5]` += the SSIM error and its 4th
/// power, the artifact term and its 4th power, the detail-loss term and its 4th power, over
/// `count` pixels (a multiple of 8; padding pixels must have zero values and zero blurs).
///
/// `ref` and `dist` are the row's XYB values. `rows` holds 9 row pointers (offsets −4…4) for
/// each row-blurred quantity, in the order of `wi_ssim2_row_blurs` (μ1, μ2, σ11, σ22, σ12) or,
/// when `mu1` and `s11` are given (a prepared reference's fully blurred rows of `ref` and
/// `ref²`), in the order of `wi_ssim2_row_blurs_distorted` (μ2, σ22, σ12).
void wi_ssim2_map_row(
    int level, const float *ref, const float *dist, const float *const *rows, const float *mu1, const float *s11,
    ptrdiff_t count, const float *taps, double *sums);

#endif
