// SSIMULACRA2's row loops (Sources/WebImageCore/Quality/ScaleMaps.swift drives them), written
// once over 8-float vectors and compiled twice: for the baseline and, on x86-64, with AVX2 and
// FMA through a per-function target attribute (the file itself is built for the baseline; the
// wide copy runs only where the CPU check says it can).
#include "metric_kernels.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#define WI_X86 1
#define WI_WIDE __attribute__((target("avx2,fma")))
#endif

// Every function that takes or returns a vector is always inlined into the two copies, so no call
// passes one and the vector-ABI warning (AVX argument without AVX) concerns no real call.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif

typedef float v8 __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

#define WI_INLINE static inline __attribute__((always_inline))

WI_INLINE v8 load8(const float *p) {
    v8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

WI_INLINE void store8(float *p, v8 v) { memcpy(p, &v, sizeof v); }

WI_INLINE v8 splat(float f) { return (v8){f, f, f, f, f, f, f, f}; }

/// `max(v, 0)`: a lane whose sign bit is set becomes +0.
WI_INLINE v8 positive_part(v8 v) {
    v8i bits = (v8i)v;
    return (v8)(bits & ~(bits >> 31));
}

/// `max(v, floor)` in each lane.
WI_INLINE v8 at_least(v8 v, v8 floor) {
    v8i above = v > floor;
    return (v8)((above & (v8i)v) | (~above & (v8i)floor));
}

WI_INLINE v8 magnitude(v8 v) { return (v8)((v8i)v & 0x7FFFFFFF); }

/// The cube root of lanes of at least 2⁻¹²⁶, without a division: v · (v^−1/3)², with v^−1/3 from
/// an exponent-thirding first guess (relative error under 0.5 %) and three Newton steps
/// y ← y (4 − v y³) / 3 (quadratic: 2·10⁻⁵, then float precision).
WI_INLINE v8 cube_root(v8 v) {
    v8i bits = (v8i)v;
    v8i third = __builtin_convertvector(__builtin_convertvector(bits, v8) * splat(1.0f / 3.0f), v8i);
    v8 y = (v8)((v8i){0x54a22000, 0x54a22000, 0x54a22000, 0x54a22000, 0x54a22000, 0x54a22000, 0x54a22000,
                      0x54a22000} - third);
    const v8 four = splat(4.0f), one_third = splat(1.0f / 3.0f);
    for (int k = 0; k < 3; k++) y = y * (four - v * (y * y * y)) * one_third;
    return v * (y * y);
}

// Opsin absorbance: libjxl's 3×3 mix plus bias (the XYB of SSIMULACRA2).
#define M00 0.30f
#define M01 (1.0f - 0.078f - 0.30f)
#define M02 0.078f
#define M10 0.23f
#define M11 (1.0f - 0.078f - 0.23f)
#define M12 0.078f
#define M20 0.24342268924547819f
#define M21 0.20476744424496821f
#define M22 (1.0f - 0.24342268924547819f - 0.20476744424496821f)
#define BIAS 0.0037930732552754493f
#define BIAS_CUBE_ROOT 0.15595420054924864f

WI_INLINE void xyb_body(const float *r, const float *g, const float *b, ptrdiff_t count, float *x, float *y, float *bo) {
    // The mix of non-negative light plus the bias is at least the bias; the floor only keeps a
    // stray negative input (there is none from sRGB bytes) away from the cube root's 0.
    const v8 floor = splat(1e-30f);
    for (ptrdiff_t i = 0; i < count; i += 8) {
        v8 vr = load8(r + i), vg = load8(g + i), vb = load8(b + i);
        v8 mixL = M00 * vr + M01 * vg + M02 * vb + BIAS;
        v8 mixM = M10 * vr + M11 * vg + M12 * vb + BIAS;
        v8 mixS = M20 * vr + M21 * vg + M22 * vb + BIAS;
        mixL = at_least(mixL, floor);
        mixM = at_least(mixM, floor);
        mixS = at_least(mixS, floor);
        v8 l = cube_root(mixL) - BIAS_CUBE_ROOT;
        v8 m = cube_root(mixM) - BIAS_CUBE_ROOT;
        v8 s = cube_root(mixS) - BIAS_CUBE_ROOT;
        v8 yy = 0.5f * (l + m);
        store8(x + i, 0.5f * (l - m) * 14.0f + 0.42f);
        store8(y + i, yy + 0.01f);
        store8(bo + i, (s - yy) + 0.55f);
    }
}

/// The symmetric 9-tap blur of `source` (readable 4 floats either side) along the row.
WI_INLINE void blur_row(const float *source, ptrdiff_t count, const float *taps, float *out) {
    const v8 t0 = splat(taps[0]), t1 = splat(taps[1]), t2 = splat(taps[2]), t3 = splat(taps[3]), t4 = splat(taps[4]);
    for (ptrdiff_t i = 0; i < count; i += 8) {
        const float *s = source + i;
        v8 v = t0 * load8(s);
        v += t1 * (load8(s - 1) + load8(s + 1));
        v += t2 * (load8(s - 2) + load8(s + 2));
        v += t3 * (load8(s - 3) + load8(s + 3));
        v += t4 * (load8(s - 4) + load8(s + 4));
        store8(out + i, v);
    }
}

/// `a·b` over the row and its 8-float margins, into `into` (whose index 0 is at `into + 8`).
WI_INLINE void product_row(const float *a, const float *b, ptrdiff_t count, float *into) {
    for (ptrdiff_t i = -8; i < count + 8; i += 8) store8(into + 8 + i, load8(a + i) * load8(b + i));
}

WI_INLINE void row_blurs_body(
    const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {
    const ptrdiff_t stride = count + 16;
    float *aa = scratch, *bb = scratch + stride, *ab = scratch + 2 * stride;
    product_row(a, a, count, aa);
    product_row(b, b, count, bb);
    product_row(a, b, count, ab);
    blur_row(a, count, taps, out[0]);
    blur_row(b, count, taps, out[1]);
    blur_row(aa + 8, count, taps, out[2]);
    blur_row(bb + 8, count, taps, out[3]);
    blur_row(ab + 8, count, taps, out[4]);
}

WI_INLINE void row_blurs_distorted_body(
    const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {
    const ptrdiff_t stride = count + 16;
    float *bb = scratch, *ab = scratch + stride;
    product_row(b, b, count, bb);
    product_row(a, b, count, ab);
    blur_row(b, count, taps, out[0]);
    blur_row(bb + 8, count, taps, out[1]);
    blur_row(ab + 8, count, taps, out[2]);
}

WI_INLINE void row_blurs_reference_body(
    const float *a, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {
    product_row(a, a, count, scratch);
    blur_row(a, count, taps, out[0]);
    blur_row(scratch + 8, count, taps, out[1]);
}

/// The column blur of the quantity whose 9 row pointers start at `r`, at column `i`.
WI_INLINE v8 blur_column(const float *const *r, ptrdiff_t i, v8 t0, v8 t1, v8 t2, v8 t3, v8 t4) {
    v8 v = t0 * load8(r[4] + i);
    v += t1 * (load8(r[3] + i) + load8(r[5] + i));
    v += t2 * (load8(r[2] + i) + load8(r[6] + i));
    v += t3 * (load8(r[1] + i) + load8(r[7] + i));
    v += t4 * (load8(r[0] + i) + load8(r[8] + i));
    return v;
}

WI_INLINE void column_blurs_body(
    const float *const *rows, int quantities, ptrdiff_t count, const float *taps, float *const *out) {
    const v8 t0 = splat(taps[0]), t1 = splat(taps[1]), t2 = splat(taps[2]), t3 = splat(taps[3]), t4 = splat(taps[4]);
    for (int q = 0; q < quantities; q++) {
        for (ptrdiff_t i = 0; i < count; i += 8) store8(out[q] + i, blur_column(rows + 9 * q, i, t0, t1, t2, t3, t4));
    }
}

WI_INLINE double lane_sum(v8 v) {
    double s = 0;
    for (int k = 0; k < 8; k++) s += (double)v[k];
    return s;
}

WI_INLINE void map_row_body(
    const float *ref, const float *dist, const float *const *rows, const float *mu1_row, const float *s11_row,
    ptrdiff_t count, const float *taps, double *sums, int prepared) {
    const v8 t0 = splat(taps[0]), t1 = splat(taps[1]), t2 = splat(taps[2]), t3 = splat(taps[3]), t4 = splat(taps[4]);
    const v8 one = splat(1.0f), c2 = splat(0.0009f);
    v8 ssim1 = splat(0), ssim4 = splat(0), artifact1 = splat(0), artifact4 = splat(0), detail1 = splat(0),
       detail4 = splat(0);
    for (ptrdiff_t i = 0; i < count; i += 8) {
        v8 mu1, mu2, s11, s22, s12;
        if (prepared) {
            mu1 = load8(mu1_row + i);
            s11 = load8(s11_row + i);
            mu2 = blur_column(rows, i, t0, t1, t2, t3, t4);
            s22 = blur_column(rows + 9, i, t0, t1, t2, t3, t4);
            s12 = blur_column(rows + 18, i, t0, t1, t2, t3, t4);
        } else {
            mu1 = blur_column(rows, i, t0, t1, t2, t3, t4);
            mu2 = blur_column(rows + 9, i, t0, t1, t2, t3, t4);
            s11 = blur_column(rows + 18, i, t0, t1, t2, t3, t4);
            s22 = blur_column(rows + 27, i, t0, t1, t2, t3, t4);
            s12 = blur_column(rows + 36, i, t0, t1, t2, t3, t4);
        }
        v8 mu_diff = mu1 - mu2;
        v8 num_m = one - mu_diff * mu_diff;
        v8 num_s = 2.0f * (s12 - mu1 * mu2) + c2;
        v8 den_s = (s11 - mu1 * mu1) + (s22 - mu2 * mu2) + c2;
        v8 d = positive_part(one - num_m * num_s / den_s);
        ssim1 += d;
        v8 d2 = d * d;
        ssim4 += d2 * d2;

        v8 e1 = magnitude(load8(ref + i) - mu1);
        v8 e2 = magnitude(load8(dist + i) - mu2);
        v8 ratio = (one + e2) / (one + e1) - one;
        v8 artifact = positive_part(ratio);
        v8 detail = positive_part(-ratio);
        artifact1 += artifact;
        v8 a2 = artifact * artifact;
        artifact4 += a2 * a2;
        detail1 += detail;
        v8 l2 = detail * detail;
        detail4 += l2 * l2;
    }
    sums[0] += lane_sum(ssim1);
    sums[1] += lane_sum(ssim4);
    sums[2] += lane_sum(artifact1);
    sums[3] += lane_sum(artifact4);
    sums[4] += lane_sum(detail1);
    sums[5] += lane_sum(detail4);
}

// MARK: The two copies and the dispatch

#define WI_KERNELS(attr, suffix)                                                                                      \
    attr static void xyb_##suffix(                                                                                    \
        const float *r, const float *g, const float *b, ptrdiff_t count, float *x, float *y, float *bo) {             \
        xyb_body(r, g, b, count, x, y, bo);                                                                           \
    }                                                                                                                 \
    attr static void row_blurs_##suffix(                                                                              \
        const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {      \
        row_blurs_body(a, b, count, taps, scratch, out);                                                              \
    }                                                                                                                 \
    attr static void row_blurs_distorted_##suffix(                                                                    \
        const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {      \
        row_blurs_distorted_body(a, b, count, taps, scratch, out);                                                    \
    }                                                                                                                 \
    attr static void row_blurs_reference_##suffix(                                                                   \
        const float *a, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {                     \
        row_blurs_reference_body(a, count, taps, scratch, out);                                                       \
    }                                                                                                                 \
    attr static void column_blurs_##suffix(                                                                           \
        const float *const *rows, int quantities, ptrdiff_t count, const float *taps, float *const *out) {            \
        column_blurs_body(rows, quantities, count, taps, out);                                                        \
    }                                                                                                                 \
    attr static void map_row_##suffix(                                                                                \
        const float *ref, const float *dist, const float *const *rows, const float *mu1, const float *s11,            \
        ptrdiff_t count, const float *taps, double *sums) {                                                           \
        if (mu1 && s11)                                                                                               \
            map_row_body(ref, dist, rows, mu1, s11, count, taps, sums, 1);                                           \
        else                                                                                                          \
            map_row_body(ref, dist, rows, 0, 0, count, taps, sums, 0);                                               \
    }

WI_KERNELS(, base)
#if WI_X86
WI_KERNELS(WI_WIDE, wide)
#define WI_PICK(level, name, ...) ((level) >= 1 ? name##_wide(__VA_ARGS__) : name##_base(__VA_ARGS__))
#else
#define WI_PICK(level, name, ...) ((void)(level), name##_base(__VA_ARGS__))
#endif

int wi_ssim2_kernels_level(void) {
    const char *forced = getenv("WEBIMAGE_METRIC_KERNELS");
    if (forced && strcmp(forced, "portable") == 0) return 0;
#if WI_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
    return 0;
}

void wi_ssim2_xyb(
    int level, const float *r, const float *g, const float *b, ptrdiff_t count, float *x, float *y, float *bo) {
    WI_PICK(level, xyb, r, g, b, count, x, y, bo);
}

void wi_ssim2_row_blurs(
    int level, const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {
    WI_PICK(level, row_blurs, a, b, count, taps, scratch, out);
}

void wi_ssim2_row_blurs_distorted(
    int level, const float *a, const float *b, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {
    WI_PICK(level, row_blurs_distorted, a, b, count, taps, scratch, out);
}

void wi_ssim2_row_blurs_reference(
    int level, const float *a, ptrdiff_t count, const float *taps, float *scratch, float *const *out) {
    WI_PICK(level, row_blurs_reference, a, count, taps, scratch, out);
}

void wi_ssim2_column_blurs(
    int level, const float *const *rows, int quantities, ptrdiff_t count, const float *taps, float *const *out) {
    WI_PICK(level, column_blurs, rows, quantities, count, taps, out);
}

void wi_ssim2_map_row(
    int level, const float *ref, const float *dist, const float *const *rows, const float *mu1, const float *s11,
    ptrdiff_t count, const float *taps, double *sums) {
    WI_PICK(level, map_row, ref, dist, rows, mu1, s11, count, taps, sums);
}
