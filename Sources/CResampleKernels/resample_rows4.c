// The opaque passes four source rows at a time (`wi_resample_horizontal_rows4`) and their
// vertical pass over pair rows (`wi_resample_vertical_pairs`). The sums are the same exact
// integers as `wi_resample_horizontal_packed` and `wi_resample_vertical` make with the same
// weights; only the layout differs: the horizontal blocks hold one channel of four rows rather
// than four channels of one row (alpha, always 255 here, is not computed), and the filtered
// rows are kept in pairs, so the vertical pass multiplies two rows per `vpdpwssd` entry instead
// of one.
#include "resample_kernels.h"
#include "resample_plan.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define WI_X86 1
#endif

ptrdiff_t wi_resample_rows4_scratch_count(const int32_t *plan) {
    // Three blocks of 32 `int16` (red, green, blue) per block of eight pixels the groups read,
    // and room to align the first to 64 bytes.
    return ((ptrdiff_t)plan[2] - (plan[0] >> 3)) * 96 + 32;
}

// MARK: Portable

static int horizontal_rows4_portable(
    const uint8_t *const *rows, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, const int32_t *plan,
    const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *pairs0, int16_t *pairs1) {
    const int32_t half = 1 << (shift - 1);
    int mask = 0;
    for (int r = 0; r < 4; r++) {
        const uint8_t *row = rows[r];
        int16_t *out = r < 2 ? pairs0 : pairs1;
        for (ptrdiff_t i = 0; i < outputs; i++) {
            int32_t sum[3] = {0, 0, 0};
            const uint8_t *p = row + starts[i] * 4;
            const int16_t *w = weights + i * block_stride * 8 + (starts[i] & 7);
            for (ptrdiff_t k = 0; k < counts[i]; k++)
                for (int c = 0; c < 3; c++) sum[c] += (int32_t)p[k * 4 + c] * w[k];
            for (int c = 0; c < 3; c++) out[(i * 3 + c) * 2 + (r & 1)] = (int16_t)(((sum[c] + half) >> shift) - offset);
        }
        uint8_t alpha = 255;
        for (ptrdiff_t x = plan[0]; x < plan[1]; x++) alpha &= row[x * 4 + 3];
        if (alpha == 255) mask |= 1 << r;
    }
    return mask;
}

static void vertical_pairs_portable(
    const int16_t *const *pairs, const int32_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift, uint8_t *out) {
    const int32_t half = 1 << (shift - 1);
    for (ptrdiff_t x = 0; x < width; x++) {
        for (int c = 0; c < 3; c++) {
            int32_t sum = 0;
            for (ptrdiff_t q = 0; q < pair_count; q++) {
                const int16_t w0 = (int16_t)(uint16_t)((uint32_t)weights[q] & 0xFFFF);
                const int16_t w1 = (int16_t)(uint16_t)((uint32_t)weights[q] >> 16);
                const int16_t *p = pairs[q] + (x * 3 + c) * 2;
                sum += (int32_t)p[0] * w0 + (int32_t)p[1] * w1;
            }
            const int32_t v = ((sum + half) >> shift) + 128;
            out[x * 4 + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        out[x * 4 + 3] = 255;
    }
}

// MARK: AVX-512 VBMI + VNNI

#if WI_X86

#define WI_VNNI_TARGET "avx2,avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni"

/// The byte permutation (`vpermt2b`, odd bytes zeroed) from rows 0 and 1 (the first table,
/// eight RGBA8 pixels each) and rows 2 and 3 (the second) to channel `c` of the four rows in
/// `int16`, row `k` in 128-bit lane `k`.
__attribute__((target(WI_VNNI_TARGET)))
static inline __m512i rows4_order_vnni(int c) {
    int8_t idx[64];
    for (int k = 0; k < 4; k++) {
        for (int x = 0; x < 8; x++) {
            idx[16 * k + 2 * x] = (int8_t)(32 * k + 4 * x + c);
            idx[16 * k + 2 * x + 1] = 0;
        }
    }
    return _mm512_loadu_si512(idx);
}

/// The widening state of four rows (`widen_rows4_vnni`): the permutations, the rows, the span
/// whose opacity is checked and what was found so far.
typedef struct {
    __m512i red, green, blue;
    const uint8_t *rows[4];
    ptrdiff_t row_width, first, lo, hi, whole, wholeEnd;
    __m512i all01, all23;
    __mmask64 bad01, bad23;
} wi_rows4_widening;

__attribute__((target(WI_VNNI_TARGET)))
static inline void widen_rows4_start(
    wi_rows4_widening *s, const uint8_t *const *rows, ptrdiff_t row_width, ptrdiff_t first, ptrdiff_t lo, ptrdiff_t hi) {
    s->red = rows4_order_vnni(0);
    s->green = rows4_order_vnni(1);
    s->blue = rows4_order_vnni(2);
    for (int k = 0; k < 4; k++) s->rows[k] = rows[k];
    s->row_width = row_width;
    s->first = first;
    s->lo = lo;
    s->hi = hi;
    // Blocks wholly inside lo..<hi (so inside the rows) are read without masks; the few at
    // the edges with them.
    s->whole = (lo + 7) >> 3;
    s->wholeEnd = hi >> 3 > s->whole ? hi >> 3 : s->whole;
    s->all01 = s->all23 = _mm512_set1_epi8(-1);
    s->bad01 = s->bad23 = 0;
}

/// Blocks `from..<to` of the four rows (`row_width` pixels each; none is read past it, and the
/// missing pixels are zero) into scratch `lanes` (block `first` first): per block, red, green
/// and blue as `rows4_order_vnni` lays them out. Called block range after block range, just
/// ahead of the taps that read them, so that they are read back from L1.
__attribute__((target(WI_VNNI_TARGET)))
static inline void widen_rows4_vnni(wi_rows4_widening *s, ptrdiff_t from, ptrdiff_t to, int16_t *lanes) {
    const __mmask64 even = 0x5555555555555555ull;
    const __m512i opaque = _mm512_set1_epi8(-1);
    const __mmask64 alphaBytes = 0x8888888888888888ull;
    const uint8_t *r0 = s->rows[0], *r1 = s->rows[1], *r2 = s->rows[2], *r3 = s->rows[3];
    __m512i all01 = s->all01, all23 = s->all23;
    for (ptrdiff_t b = from; b < to; b++) {
        __m512i t01, t23;
        if (b >= s->whole && b < s->wholeEnd) {
            const ptrdiff_t at = b * 32;
            t01 = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(r0 + at))), _mm256_loadu_si256((const __m256i *)(r1 + at)), 1);
            t23 = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(r2 + at))), _mm256_loadu_si256((const __m256i *)(r3 + at)), 1);
            all01 = _mm512_and_si512(all01, t01);
            all23 = _mm512_and_si512(all23, t23);
        } else {
            const ptrdiff_t x = b * 8;
            // The pixels of this block inside the rows, and those inside lo..<hi, as byte masks.
            const ptrdiff_t have = s->row_width - x >= 8 ? 8 : s->row_width - x;
            const __mmask32 inside = have >= 8 ? 0xFFFFFFFFu : have <= 0 ? 0 : (__mmask32)((1u << (have * 4)) - 1);
            const ptrdiff_t lo = s->lo > x ? s->lo - x : 0, hi = s->hi - x < 8 ? s->hi - x : 8;
            const __mmask32 checked =
                hi > lo ? (__mmask32)((hi >= 8 ? 0xFFFFFFFFu : (1u << (hi * 4)) - 1) & ~((1u << (lo * 4)) - 1)) : 0;
            const ptrdiff_t at = x * 4;
            // Masked loads only touch the bytes their masks select.
            t01 = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm256_maskz_loadu_epi8(inside, inside ? r0 + at : r0)),
                _mm256_maskz_loadu_epi8(inside, inside ? r1 + at : r1), 1);
            t23 = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm256_maskz_loadu_epi8(inside, inside ? r2 + at : r2)),
                _mm256_maskz_loadu_epi8(inside, inside ? r3 + at : r3), 1);
            const __mmask64 both = ((__mmask64)checked << 32 | checked) & alphaBytes;
            s->bad01 |= _mm512_mask_cmpneq_epi8_mask(both, t01, opaque);
            s->bad23 |= _mm512_mask_cmpneq_epi8_mask(both, t23, opaque);
        }
        int16_t *at = lanes + (b - s->first) * 96;
        _mm512_store_si512(at, _mm512_maskz_permutex2var_epi8(even, t01, s->red, t23));
        _mm512_store_si512(at + 32, _mm512_maskz_permutex2var_epi8(even, t01, s->green, t23));
        _mm512_store_si512(at + 64, _mm512_maskz_permutex2var_epi8(even, t01, s->blue, t23));
    }
    s->all01 = all01;
    s->all23 = all23;
}

/// The mask of the rows whose pixels `lo..<hi` all have alpha 255 (bit `k` for row `k`), once
/// every block is widened.
__attribute__((target(WI_VNNI_TARGET)))
static inline int widen_rows4_opaque(const wi_rows4_widening *s) {
    // Alpha bytes that are not 255: rows 0 and 2 in the low 32 bits, rows 1 and 3 in the high.
    const __mmask64 alphaBytes = 0x8888888888888888ull;
    const __m512i opaque = _mm512_set1_epi8(-1);
    const __mmask64 bad01 = s->bad01 | _mm512_mask_cmpneq_epi8_mask(alphaBytes, s->all01, opaque);
    const __mmask64 bad23 = s->bad23 | _mm512_mask_cmpneq_epi8_mask(alphaBytes, s->all23, opaque);
    return ((uint32_t)bad01 == 0 ? 1 : 0) | ((bad01 >> 32) == 0 ? 2 : 0) | ((uint32_t)bad23 == 0 ? 4 : 0)
        | ((bad23 >> 32) == 0 ? 8 : 0);
}

/// Four outputs' sums over `blocks` blocks each from `p[j]` (red, green, blue blocks of four
/// rows), with packed weights from `w[j]` broadcast to every lane; each weight load serves the
/// three channels. Returns in `sums[c]` channel `c` with row `k` of output `j` in entry `4k + j`.
__attribute__((target(WI_VNNI_TARGET)))
static inline void taps4x3_vnni(const int16_t *const p[4], const int16_t *const w[4], ptrdiff_t blocks, __m512i sums[3]) {
    __m512i a[4][3];
    for (int j = 0; j < 4; j++)
        for (int c = 0; c < 3; c++) a[j][c] = _mm512_setzero_si512();
    for (ptrdiff_t b = 0; b < blocks; b++) {
        for (int j = 0; j < 4; j++) {
            const __m512i weight = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(w[j] + b * 8)));
            const int16_t *q = p[j] + b * 96;
            a[j][0] = _mm512_dpwssd_epi32(a[j][0], _mm512_load_si512(q), weight);
            a[j][1] = _mm512_dpwssd_epi32(a[j][1], _mm512_load_si512(q + 32), weight);
            a[j][2] = _mm512_dpwssd_epi32(a[j][2], _mm512_load_si512(q + 64), weight);
        }
    }
    // Each lane (a row) holds four partial sums per output: add entries 0 + 2 and 1 + 3 of
    // two outputs at once, then the two halves.
    for (int c = 0; c < 3; c++) {
        const __m512i x = _mm512_add_epi32(_mm512_unpacklo_epi32(a[0][c], a[1][c]), _mm512_unpackhi_epi32(a[0][c], a[1][c]));
        const __m512i y = _mm512_add_epi32(_mm512_unpacklo_epi32(a[2][c], a[3][c]), _mm512_unpackhi_epi32(a[2][c], a[3][c]));
        sums[c] = _mm512_add_epi32(_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y));
    }
}

/// The `vpermt2w` indices from `[red(k, 0…3) green(k, 0…3)]` (lane `k` of the first table) and
/// `[blue(k, 0…3) …]` (the second) to the pair-row layout of rows `r0` and `r0 + 1`: four
/// outputs' 24 values, then (unused) zeros.
__attribute__((target(WI_VNNI_TARGET)))
static inline __m512i pair_order_vnni(int r0) {
    int16_t idx[32];
    for (int j = 0; j < 4; j++) {
        for (int c = 0; c < 3; c++) {
            for (int r = 0; r < 2; r++) {
                const int lane = 8 * (r0 + r);
                idx[(j * 3 + c) * 2 + r] = (int16_t)(c == 0 ? lane + j : c == 1 ? lane + 4 + j : 32 + lane + j);
            }
        }
    }
    for (int n = 24; n < 32; n++) idx[n] = 0;
    return _mm512_loadu_si512(idx);
}

__attribute__((target(WI_VNNI_TARGET)))
static int horizontal_rows4_vnni(
    const uint8_t *const *rows, ptrdiff_t row_width, ptrdiff_t outputs, const int32_t *plan, const int16_t *weights,
    ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch, int16_t *pairs0, int16_t *pairs1,
    const uint8_t *const *next) {
    const ptrdiff_t lo = plan[0], hi = plan[1];
    const ptrdiff_t first = lo >> 3, end = plan[2];
    int16_t *lanes = (int16_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    wi_rows4_widening widening;
    widen_rows4_start(&widening, rows, row_width, first, lo, hi);
    ptrdiff_t widened = first;
    // The next four rows' spans fetched into L2 a few lines per group, while these compute.
    const ptrdiff_t groups = (outputs + 3) / 4;
    const ptrdiff_t spanLines = ((hi - lo) * 4 + 63) / 64 + 1;
    const ptrdiff_t linesPerGroup = (spanLines + groups - 1) / groups;
    ptrdiff_t fetched = 0;
    const __m512i half = _mm512_set1_epi32(1 << (shift - 1));
    const __m512i off = _mm512_set1_epi32(offset);
    const __m128i count = _mm_cvtsi32_si128(shift);
    const __m512i order0 = pair_order_vnni(0), order1 = pair_order_vnni(2);
    const int16_t *groupWeights = weights;
    const ptrdiff_t groupStride = 4 * block_stride * 8;
    const int32_t *g = plan + WI_PLAN_HEADER;
    for (ptrdiff_t i = 0; i < outputs; i += 4, g += WI_PLAN_GROUP, groupWeights += groupStride) {
        const int16_t *p[4], *w[4];
        for (int j = 0; j < 4; j++) {
            p[j] = lanes + (g[j] - first) * 96;
            w[j] = i + j < outputs ? groupWeights + j * block_stride * 8 : w[j - 1];
        }
        if (next) {
            for (ptrdiff_t k = 0; k < linesPerGroup && fetched < spanLines; k++, fetched++) {
                for (int r = 0; r < 4; r++) _mm_prefetch((const char *)next[r] + lo * 4 + fetched * 64, _MM_HINT_T1);
            }
        }
        // The blocks this group reads that are not widened yet.
        if (g[5] > widened) {
            widen_rows4_vnni(&widening, widened, g[5], lanes);
            widened = g[5];
        }
        __m512i sums[3];
        taps4x3_vnni(p, w, g[4], sums);
        for (int c = 0; c < 3; c++) sums[c] = _mm512_sub_epi32(_mm512_sra_epi32(_mm512_add_epi32(sums[c], half), count), off);
        // The values fit `int16` (the caller checked the weights' magnitudes), so saturation
        // leaves them as they are.
        const __m512i rg = _mm512_packs_epi32(sums[0], sums[1]), b0 = _mm512_packs_epi32(sums[2], _mm512_setzero_si512());
        const __m512i v0 = _mm512_permutex2var_epi16(rg, order0, b0), v1 = _mm512_permutex2var_epi16(rg, order1, b0);
        // Four outputs' 24 values (fewer in the last group).
        const __mmask32 left = i + 4 <= outputs ? 0xFFFFFFu : (__mmask32)((1u << ((outputs - i) * 6)) - 1);
        _mm512_mask_storeu_epi16(pairs0 + i * 6, left, v0);
        _mm512_mask_storeu_epi16(pairs1 + i * 6, left, v1);
    }
    // The blocks no group read (the opacity check covers the whole span).
    if (end > widened) widen_rows4_vnni(&widening, widened, end, lanes);
    return widen_rows4_opaque(&widening);
}

/// The `vpermb` indices from the bytes `vertical_pairs_vnni` packs (lane `l`: entries
/// `4l…4l + 3` of its three sums, then zeros) to sixteen RGBA8 pixels, alpha left for a mask.
__attribute__((target(WI_VNNI_TARGET)))
static inline __m512i vertical_pairs_order_vnni(void) {
    int8_t idx[64];
    for (int p = 0; p < 16; p++) {
        for (int c = 0; c < 4; c++) {
            const int e = 3 * p + c, k = e / 16, t = e % 16;
            idx[4 * p + c] = (int8_t)(c == 3 ? 0 : 16 * (t / 4) + 4 * k + t % 4);
        }
    }
    return _mm512_loadu_si512(idx);
}

/// `vertical_pairs_portable` sixteen pixels (three registers of sixteen values) at a time, the
/// last ones under masks; with `weights1` and `out1`, a second output row from the same pair
/// rows (each pair row's values loaded once for both).
__attribute__((target(WI_VNNI_TARGET)))
static inline void vertical_pairs_vnni(
    const int16_t *const *pairs, const int32_t *weights, const int32_t *weights1, ptrdiff_t pair_count, ptrdiff_t width,
    int shift, uint8_t *out, uint8_t *out1) {
    const __m512i half = _mm512_set1_epi32(1 << (shift - 1));
    const __m512i bias = _mm512_set1_epi32(128);
    const __m128i bits = _mm_cvtsi32_si128(shift);
    const __m512i order = vertical_pairs_order_vnni();
    const __m512i alpha = _mm512_set1_epi32((int32_t)0xFF000000u);
    const __mmask64 colours = 0x7777777777777777ull;
    for (ptrdiff_t x = 0; x < width; x += 16) {
        const ptrdiff_t n = width - x < 16 ? width - x : 16;
        // Per register of sixteen values (channels of pixels), those inside the row.
        __mmask16 m[3];
        for (int k = 0; k < 3; k++) {
            const ptrdiff_t left = 3 * n - 16 * k;
            m[k] = left >= 16 ? 0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
        }
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0;
        __m512i c0 = a0, c1 = a0, c2 = a0;
        for (ptrdiff_t q = 0; q < pair_count; q++) {
            const int16_t *p = pairs[q] + x * 6;
            // The pair rows are a ring slot apart, too far for the hardware's stride prefetcher:
            // this pair row's values three steps on fetched into L1 (prefetching past the row
            // is harmless).
            _mm_prefetch((const char *)(p + 288), _MM_HINT_T0);
            _mm_prefetch((const char *)(p + 320), _MM_HINT_T0);
            _mm_prefetch((const char *)(p + 352), _MM_HINT_T0);
            const __m512i v0 = _mm512_maskz_loadu_epi32(m[0], p), v1 = _mm512_maskz_loadu_epi32(m[1], p + 32);
            const __m512i v2 = _mm512_maskz_loadu_epi32(m[2], p + 64);
            const __m512i w = _mm512_set1_epi32(weights[q]);
            a0 = _mm512_dpwssd_epi32(a0, v0, w);
            a1 = _mm512_dpwssd_epi32(a1, v1, w);
            a2 = _mm512_dpwssd_epi32(a2, v2, w);
            if (weights1) {
                const __m512i u = _mm512_set1_epi32(weights1[q]);
                c0 = _mm512_dpwssd_epi32(c0, v0, u);
                c1 = _mm512_dpwssd_epi32(c1, v1, u);
                c2 = _mm512_dpwssd_epi32(c2, v2, u);
            }
        }
        const __mmask16 stored = n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1);
#define WI_ROUND(A) _mm512_add_epi32(_mm512_sra_epi32(_mm512_add_epi32(A, half), bits), bias)
        // Saturating packs clamp to 0…255 as the portable pass does; then the bytes to pixels.
#define WI_STORE(OUT, A0, A1, A2)                                                                                      \
    _mm512_mask_storeu_epi32((OUT) + x * 4, stored,                                                                    \
        _mm512_or_si512(_mm512_maskz_permutexvar_epi8(colours, order,                                                  \
            _mm512_packus_epi16(_mm512_packs_epi32(WI_ROUND(A0), WI_ROUND(A1)),                                        \
                _mm512_packs_epi32(WI_ROUND(A2), _mm512_setzero_si512()))),                                            \
            alpha))
        WI_STORE(out, a0, a1, a2);
        if (weights1) WI_STORE(out1, c0, c1, c2);
#undef WI_STORE
#undef WI_ROUND
    }
}

#endif

// MARK: Dispatch

int wi_resample_horizontal_rows4(
    int level, const uint8_t *const *rows, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts,
    const ptrdiff_t *counts, const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset,
    int16_t *scratch, int16_t *pairs0, int16_t *pairs1, const uint8_t *const *next) {
    if (outputs <= 0) return 15;
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 4) {
        return horizontal_rows4_vnni(
            rows, row_width, outputs, plan, weights, block_stride, shift, offset, scratch, pairs0, pairs1, next);
    }
#endif
    (void)row_width;
    (void)scratch;
    (void)next;
    return horizontal_rows4_portable(rows, outputs, starts, counts, plan, weights, block_stride, shift, offset, pairs0, pairs1);
}

void wi_resample_vertical_pairs(
    int level, const int16_t *const *pairs, const int32_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 4) {
        vertical_pairs_vnni(pairs, weights, NULL, pair_count, width, shift, out, NULL);
        return;
    }
#endif
    vertical_pairs_portable(pairs, weights, pair_count, width, shift, out);
}

void wi_resample_vertical_pairs2(
    int level, const int16_t *const *pairs, const int32_t *weights0, const int32_t *weights1, ptrdiff_t pair_count,
    ptrdiff_t width, int shift, uint8_t *out0, uint8_t *out1) {
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 4) {
        vertical_pairs_vnni(pairs, weights0, weights1, pair_count, width, shift, out0, out1);
        return;
    }
#endif
    vertical_pairs_portable(pairs, weights0, pair_count, width, shift, out0);
    vertical_pairs_portable(pairs, weights1, pair_count, width, shift, out1);
}
