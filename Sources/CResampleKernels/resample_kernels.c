// The resampler's fixed-point passes at the machine's vector width. The arithmetic is the
// portable Swift passes' (FixedPointKernel, OpaqueRows): exact integer sums of the same
// quantised weights, rounded the same way, so the results are identical, not just close.
//
// x86-64: the AVX2 functions carry a per-function target attribute, so this file is compiled
// for the baseline like the rest of the package and the AVX2 code runs only where the CPU check
// says it can. arm64: NEON is part of the baseline, so no check is needed.
#include "resample_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>
#define WI_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#include <stdlib.h>
#include <string.h>
#define WI_NEON 1
#endif

// MARK: Portable (used only if a caller asks when level is 0)

/// Weight `k` of output `i` in the block layout `wi_resample_horizontal` describes.
static inline int16_t tap(const int16_t *weights, ptrdiff_t block_stride, ptrdiff_t i, ptrdiff_t start, ptrdiff_t k) {
    const ptrdiff_t j = k + (start & 1);  // position from the even start
    // Block j / 8 holds positions 0…7 as [w0 w1 ×4 | w2 w3 ×4], [w4 w5 ×4 | w6 w7 ×4].
    const ptrdiff_t in = j % 8;
    return weights[(i * block_stride + j / 8) * 32 + (in / 4) * 16 + ((in % 4) / 2) * 8 + in % 2];
}

/// The AND of the alpha bytes of pixels `from..<to` (255 when empty).
static inline uint8_t alpha_and(const uint8_t *row, ptrdiff_t from, ptrdiff_t to) {
    uint8_t a = 255;
    for (ptrdiff_t x = from; x < to; x++) a &= row[x * 4 + 3];
    return a;
}

/// The lowest start of the outputs (where the opacity check begins).
static inline ptrdiff_t first_start(const ptrdiff_t *starts, ptrdiff_t outputs) {
    ptrdiff_t first = starts[0];
    for (ptrdiff_t i = 1; i < outputs; i++)
        if (starts[i] < first) first = starts[i];
    return first;
}

static int horizontal_portable(
    const uint8_t *row, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights,
    ptrdiff_t block_stride, int shift, int32_t offset, int16_t *out) {
    const int32_t half = 1 << (shift - 1);
    ptrdiff_t checked = first_start(starts, outputs);
    uint8_t alpha = 255;
    for (ptrdiff_t i = 0; i < outputs; i++) {
        int32_t sum[4] = {0, 0, 0, 0};
        const uint8_t *p = row + starts[i] * 4;
        for (ptrdiff_t k = 0; k < counts[i]; k++) {
            const int32_t w = tap(weights, block_stride, i, starts[i], k);
            for (int c = 0; c < 4; c++) sum[c] += (int32_t)p[k * 4 + c] * w;
        }
        for (int c = 0; c < 4; c++) out[i * 4 + c] = (int16_t)(((sum[c] + half) >> shift) - offset);
        const ptrdiff_t end = starts[i] + counts[i];
        if (end > checked) {
            alpha &= alpha_and(row, checked, end);
            checked = end;
        }
    }
    return alpha == 255;
}

static void vertical_portable(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    const int32_t half = 1 << (shift - 1);
    for (ptrdiff_t x = 0; x < width * 4; x++) {
        int32_t sum = 0;
        for (ptrdiff_t t = 0; t < pair_count; t++) {
            sum += (int32_t)rows[2 * t][x] * weights[8 * t] + (int32_t)rows[2 * t + 1][x] * weights[8 * t + 1];
        }
        int32_t v = ((sum + half) >> shift) + 128;
        out[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

// MARK: AVX2

#if WI_X86

/// The output's sum of taps in the form the AVX2 kernels leave it: `blocks` blocks of eight
/// pixels from `p` (the output's even start), each pixel widened to int16 in the register that
/// multiplies it. A broadcast load and one byte shuffle turn four pixels into the entries
/// [r₀ r₁ g₀ g₁ b₀ b₁ a₀ a₁ | r₂ r₃ g₂ g₃ b₂ b₃ a₂ a₃] the weight block's halves expect.
__attribute__((target("avx2")))
static inline __m128i taps_avx2(const uint8_t *p, const int16_t *weights, ptrdiff_t blocks) {
    const __m256i spread = _mm256_setr_epi8(
        0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1,
        8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1);
    const __m256i *w = (const __m256i *)weights;
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    for (ptrdiff_t b = 0; b < blocks; b++) {
        const __m256i lo = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + b * 32))), spread);
        const __m256i hi = _mm256_shuffle_epi8(
            _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + b * 32 + 16))), spread);
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(lo, _mm256_loadu_si256(w + 2 * b)));
        acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(hi, _mm256_loadu_si256(w + 2 * b + 1)));
    }
    const __m256i acc = _mm256_add_epi32(acc0, acc1);
    return _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
}

/// The same with 512-bit registers (AVX-512BW): a block's eight pixels widened to int16 at once
/// (pixels 2k and 2k + 1 land in 128-bit lane k), reordered within each lane to the entry form,
/// one multiply-add per block.
__attribute__((target("avx2,avx512f,avx512bw")))
static inline __m128i taps_avx512(const uint8_t *p, const int16_t *weights, ptrdiff_t blocks) {
    // [r₀ g₀ b₀ a₀ r₁ g₁ b₁ a₁] as int16 → [r₀ r₁ g₀ g₁ b₀ b₁ a₀ a₁], in each lane.
    const __m512i order = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15));
    __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
    ptrdiff_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        const __m512i e0 = _mm512_shuffle_epi8(_mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p + b * 32))), order);
        const __m512i e1 = _mm512_shuffle_epi8(
            _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p + b * 32 + 32))), order);
        acc0 = _mm512_add_epi32(acc0, _mm512_madd_epi16(e0, _mm512_loadu_si512(weights + b * 32)));
        acc1 = _mm512_add_epi32(acc1, _mm512_madd_epi16(e1, _mm512_loadu_si512(weights + b * 32 + 32)));
    }
    if (b < blocks) {
        const __m512i e0 = _mm512_shuffle_epi8(_mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p + b * 32))), order);
        acc0 = _mm512_add_epi32(acc0, _mm512_madd_epi16(e0, _mm512_loadu_si512(weights + b * 32)));
    }
    const __m512i acc = _mm512_add_epi32(acc0, acc1);
    const __m256i quarter = _mm256_add_epi32(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
    return _mm_add_epi32(_mm256_castsi256_si128(quarter), _mm256_extracti128_si256(quarter, 1));
}

/// 1 when the alpha bytes (bytes 3, 7, …, 31) of `all` are 255.
__attribute__((target("avx2")))
static inline int alphas_opaque_avx2(__m256i all) {
    const uint32_t alphas = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(all, _mm256_set1_epi8(-1))) & 0x88888888u;
    return alphas == 0x88888888u;
}

/// Both horizontal kernels: each output's taps read straight from the row's bytes
/// (`taps_avx2` or `taps_avx512`), so the row is read once, while it is in cache. The pixels
/// an output's window newly reaches are ANDed into the opacity check in the same walk, eight
/// at a time (the few left past the last eight at the end of the row). A window whose blocks
/// would read past the row runs on a zero-padded copy of its pixels in `scratch`.
#define WI_HORIZONTAL_BODY(TAPS)                                                                                    \
    const __m128i half = _mm_set1_epi32(1 << (shift - 1));                                                          \
    const __m128i off = _mm_set1_epi32(offset);                                                                     \
    const __m128i count = _mm_cvtsi32_si128(shift);                                                                 \
    const __m128i low16 = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);                  \
    ptrdiff_t checked = starts[0], last = 0;                                                                        \
    for (ptrdiff_t i = 1; i < outputs; i++)                                                                         \
        if (starts[i] < checked) checked = starts[i];                                                               \
    __m256i alphas = _mm256_set1_epi8(-1);                                                                          \
    uint8_t *padded = (uint8_t *)scratch;                                                                           \
    for (ptrdiff_t i = 0; i < outputs; i++) {                                                                       \
        const ptrdiff_t start = starts[i] & ~(ptrdiff_t)1;                                                          \
        const ptrdiff_t blocks = (counts[i] + (starts[i] & 1) + 7) / 8;                                             \
        const int16_t *w = weights + i * block_stride * 32;                                                         \
        __m128i sum;                                                                                                \
        if (start + blocks * 8 <= row_width) {                                                                      \
            sum = TAPS(row + start * 4, w, blocks);                                                                 \
        } else {                                                                                                    \
            const size_t inside = (size_t)(row_width - start) * 4;                                                  \
            memcpy(padded, row + start * 4, inside);                                                                \
            memset(padded + inside, 0, (size_t)blocks * 32 - inside);                                               \
            sum = TAPS(padded, w, blocks);                                                                          \
        }                                                                                                           \
        const ptrdiff_t end = starts[i] + counts[i];                                                                \
        if (end > last) last = end;                                                                                 \
        for (; checked + 8 <= end; checked += 8)                                                                    \
            alphas = _mm256_and_si256(alphas, _mm256_loadu_si256((const __m256i *)(row + checked * 4)));            \
        sum = _mm_sub_epi32(_mm_sra_epi32(_mm_add_epi32(sum, half), count), off);                                   \
        /* The low 16 bits of each lane (the Swift pass truncates the same way). */                                 \
        _mm_storel_epi64((__m128i *)(out + i * 4), _mm_shuffle_epi8(sum, low16));                                   \
    }                                                                                                               \
    uint8_t alpha = alphas_opaque_avx2(alphas) ? 255 : 0;                                                           \
    for (; checked < last; checked++) alpha &= row[checked * 4 + 3];                                                \
    return alpha == 255;

__attribute__((target("avx2")))
static int horizontal_avx2(
    const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch, int16_t *out) {
    WI_HORIZONTAL_BODY(taps_avx2)
}

__attribute__((target("avx2,avx512f,avx512bw")))
static int horizontal_avx512(
    const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch, int16_t *out) {
    WI_HORIZONTAL_BODY(taps_avx512)
}

#undef WI_HORIZONTAL_BODY

__attribute__((target("avx2")))
static void vertical_avx2(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    const __m256i half = _mm256_set1_epi32(1 << (shift - 1));
    const __m256i bias = _mm256_set1_epi32(128);
    const __m128i count = _mm_cvtsi32_si128(shift);
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    ptrdiff_t x = 0;
    // Eight pixels (two 256-bit loads per row) at a time; interleaving two rows 16 bits at a
    // time puts one pixel's four channels of both rows in each 128-bit half.
    for (; x + 8 <= width; x += 8) {
        __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
        __m256i a2 = _mm256_setzero_si256(), a3 = _mm256_setzero_si256();
        for (ptrdiff_t t = 0; t < pair_count; t++) {
            const int16_t *r0 = rows[2 * t] + x * 4, *r1 = rows[2 * t + 1] + x * 4;
            int32_t wpair;
            memcpy(&wpair, weights + 8 * t, 4);
            const __m256i w = _mm256_set1_epi32(wpair);
            const __m256i p0 = _mm256_loadu_si256((const __m256i *)r0), q0 = _mm256_loadu_si256((const __m256i *)r1);
            const __m256i p1 = _mm256_loadu_si256((const __m256i *)(r0 + 16));
            const __m256i q1 = _mm256_loadu_si256((const __m256i *)(r1 + 16));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(p0, q0), w));  // pixels 0 | 2
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(p0, q0), w));  // 1 | 3
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi16(p1, q1), w));  // 4 | 6
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi16(p1, q1), w));  // 5 | 7
        }
        a0 = _mm256_add_epi32(_mm256_sra_epi32(_mm256_add_epi32(a0, half), count), bias);
        a1 = _mm256_add_epi32(_mm256_sra_epi32(_mm256_add_epi32(a1, half), count), bias);
        a2 = _mm256_add_epi32(_mm256_sra_epi32(_mm256_add_epi32(a2, half), count), bias);
        a3 = _mm256_add_epi32(_mm256_sra_epi32(_mm256_add_epi32(a3, half), count), bias);
        // Saturating packs clamp to 0…255 as the Swift pass does: [0 1 | 2 3], [4 5 | 6 7] as
        // int16, then bytes [0 1 4 5 | 2 3 6 7], then the pixels in order.
        const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(a0, a1), _mm256_packs_epi32(a2, a3));
        _mm256_storeu_si256((__m256i *)(out + x * 4), _mm256_permutevar8x32_epi32(bytes, order));
    }
    if (x < width) {
        // The last pixels through the portable code (the dispatch keeps pair_count ≤ 64).
        const int16_t *tails[2 * 64];
        for (ptrdiff_t t = 0; t < 2 * pair_count; t++) tails[t] = rows[t] + x * 4;
        vertical_portable(tails, weights, pair_count, width - x, shift, out + x * 4);
    }
}

#endif

// MARK: NEON (arm64; compiled there, not run on this project's x86-64 test machines)

#if WI_NEON

static int horizontal_neon(
    const uint8_t *row, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights,
    ptrdiff_t block_stride, int shift, int32_t offset, int16_t *out) {
    ptrdiff_t checked = first_start(starts, outputs);
    uint8_t alpha = 255;
    const int32x4_t negShift = vdupq_n_s32(-shift);
    const int32x4_t half = vdupq_n_s32(1 << (shift - 1));
    const int32x4_t off = vdupq_n_s32(offset);
    for (ptrdiff_t i = 0; i < outputs; i++) {
        const ptrdiff_t start = starts[i];
        const uint8_t *p = row + start * 4;
        const ptrdiff_t n = counts[i];
        int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
        ptrdiff_t k = 0;
        // Two pixels (eight bytes) a step: each pixel's four channels widened, times its weight.
        for (; k + 2 <= n; k += 2) {
            const int16x8_t px = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(p + k * 4)));
            acc0 = vmlal_n_s16(acc0, vget_low_s16(px), tap(weights, block_stride, i, start, k));
            acc1 = vmlal_n_s16(acc1, vget_high_s16(px), tap(weights, block_stride, i, start, k + 1));
        }
        if (k < n) {
            const uint8_t *q = p + k * 4;
            const int16x4_t px = {q[0], q[1], q[2], q[3]};
            acc0 = vmlal_n_s16(acc0, px, tap(weights, block_stride, i, start, k));
        }
        int32x4_t sum = vaddq_s32(acc0, acc1);
        sum = vsubq_s32(vshlq_s32(vaddq_s32(sum, half), negShift), off);
        vst1_s16(out + i * 4, vmovn_s32(sum));
        if (start + n > checked) {
            alpha &= alpha_and(row, checked, start + n);
            checked = start + n;
        }
    }
    return alpha == 255;
}

static void vertical_neon(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    const int32x4_t negShift = vdupq_n_s32(-shift);
    const int32x4_t half = vdupq_n_s32(1 << (shift - 1));
    const int32x4_t bias = vdupq_n_s32(128);
    ptrdiff_t x = 0;
    for (; x + 2 <= width; x += 2) {
        int32x4_t a0 = vdupq_n_s32(0), a1 = vdupq_n_s32(0);
        for (ptrdiff_t t = 0; t < pair_count; t++) {
            const int16x8_t r0 = vld1q_s16(rows[2 * t] + x * 4), r1 = vld1q_s16(rows[2 * t + 1] + x * 4);
            const int16_t w0 = weights[8 * t], w1 = weights[8 * t + 1];
            a0 = vmlal_n_s16(vmlal_n_s16(a0, vget_low_s16(r0), w0), vget_low_s16(r1), w1);
            a1 = vmlal_n_s16(vmlal_n_s16(a1, vget_high_s16(r0), w0), vget_high_s16(r1), w1);
        }
        a0 = vaddq_s32(vshlq_s32(vaddq_s32(a0, half), negShift), bias);
        a1 = vaddq_s32(vshlq_s32(vaddq_s32(a1, half), negShift), bias);
        vst1_u8(out + x * 4, vqmovun_s16(vcombine_s16(vqmovn_s32(a0), vqmovn_s32(a1))));
    }
    if (x < width) {
        // The last pixel through the portable code (the dispatch keeps pair_count ≤ 64).
        const int16_t *tails[2 * 64];
        for (ptrdiff_t t = 0; t < 2 * pair_count; t++) tails[t] = rows[t] + x * 4;
        vertical_portable(tails, weights, pair_count, width - x, shift, out + x * 4);
    }
}

#endif

// MARK: Dispatch

static int detect_level(void) {
#if WI_X86 || WI_NEON
    const char *forced = getenv("WEBIMAGE_RESAMPLE_KERNELS");
    if (forced && strcmp(forced, "portable") == 0) return 0;
#endif
#if WI_X86
    // What the runtime's start-up CPU check recorded (CPUID, and XGETBV for the operating
    // system's saving of the vector registers).
    if (!__builtin_cpu_supports("avx2")) return 0;
    if (forced && strcmp(forced, "avx2") == 0) return 1;
    return __builtin_cpu_supports("avx512bw") ? 3 : 1;
#elif WI_NEON
    return 2;
#else
    return 0;
#endif
}

int wi_resample_kernels_level(void) {
    // Found once per process; threads racing on the first call store the same value.
    static int cached = -1;
    int level = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (level < 0) {
        level = detect_level();
        __atomic_store_n(&cached, level, __ATOMIC_RELAXED);
    }
    return level;
}

int wi_resample_horizontal(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch, int16_t *out) {
    if (outputs <= 0) return 1;
#if WI_X86
    if (level > wi_resample_kernels_level()) level = 0;
    if (level == 3) {
        return horizontal_avx512(row, row_width, outputs, starts, counts, weights, block_stride, shift, offset, scratch, out);
    }
    if (level == 1) {
        return horizontal_avx2(row, row_width, outputs, starts, counts, weights, block_stride, shift, offset, scratch, out);
    }
#elif WI_NEON
    if (level == 2) {
        return horizontal_neon(row, outputs, starts, counts, weights, block_stride, shift, offset, out);
    }
#endif
    (void)row_width;
    (void)scratch;
    return horizontal_portable(row, outputs, starts, counts, weights, block_stride, shift, offset, out);
}

void wi_resample_vertical(
    int level, const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if ((level == 1 || level == 3) && pair_count <= 64) {
        vertical_avx2(rows, weights, pair_count, width, shift, out);
        return;
    }
#elif WI_NEON
    if (level == 2 && pair_count <= 64) {
        vertical_neon(rows, weights, pair_count, width, shift, out);
        return;
    }
#endif
    vertical_portable(rows, weights, pair_count, width, shift, out);
}
