// The resampler's fixed-point passes at the machine's vector width. The arithmetic is the
// portable Swift passes' (FixedPointKernel, OpaqueRows): exact integer sums of the same
// quantised weights, rounded the same way, so the results are identical, not just close.
//
// x86-64: the AVX2 functions carry a per-function target attribute, so this file is compiled
// for the baseline like the rest of the package and the AVX2 code runs only where the CPU check
// says it can. arm64: NEON is part of the baseline, so no check is needed.
#include "resample_kernels.h"

#include <math.h>

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

#include "resample_plan.h"

ptrdiff_t wi_resample_packed_plan_count(ptrdiff_t outputs) {
    return WI_PLAN_HEADER + (outputs + 3) / 4 * WI_PLAN_GROUP;
}

void wi_resample_packed_plan(ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, int32_t *plan) {
    ptrdiff_t first = outputs > 0 ? starts[0] : 0, last = 0;
    for (ptrdiff_t i = 0; i < outputs; i++) {
        if (starts[i] < first) first = starts[i];
        if (starts[i] + counts[i] > last) last = starts[i] + counts[i];
    }
    plan[0] = (int32_t)first;
    plan[1] = (int32_t)last;
    // A group runs each window as long as its longest, so one that starts later than the
    // longest may read blocks past the last window's end.
    ptrdiff_t reach = (last + 7) >> 3, read = 0;
    for (ptrdiff_t i = 0; i < outputs; i += 4) {
        // Per group: the block (of eight pixels) each of the four windows starts in (the last
        // output repeated past the end), and the most blocks any of them spans.
        int32_t *g = plan + WI_PLAN_HEADER + i / 4 * WI_PLAN_GROUP;
        ptrdiff_t blocks = 0;
        for (int j = 0; j < 4; j++) {
            const ptrdiff_t o = i + j < outputs ? i + j : outputs - 1;
            const ptrdiff_t n = (counts[o] + (starts[o] & 7) + 7) / 8;
            g[j] = (int32_t)(starts[o] >> 3);
            if (n > blocks) blocks = n;
        }
        g[4] = (int32_t)blocks;
        g[6] = g[7] = 0;
        for (int j = 0; j < 4; j++)
            if (g[j] + blocks > read) read = g[j] + blocks;
        // The end of the blocks the groups up to this one read.
        g[5] = (int32_t)read;
        if (read > reach) reach = read;
    }
    plan[2] = (int32_t)reach;
    plan[3] = 0;
}

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

/// `horizontal_portable` with the packed weights of `wi_resample_horizontal_packed`.
static int horizontal_portable_packed(
    const uint8_t *row, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights,
    ptrdiff_t block_stride, int shift, int32_t offset, int16_t *out) {
    const int32_t half = 1 << (shift - 1);
    ptrdiff_t checked = first_start(starts, outputs);
    uint8_t alpha = 255;
    for (ptrdiff_t i = 0; i < outputs; i++) {
        int32_t sum[4] = {0, 0, 0, 0};
        const uint8_t *p = row + starts[i] * 4;
        const int16_t *w = weights + i * block_stride * 8 + (starts[i] & 7);
        for (ptrdiff_t k = 0; k < counts[i]; k++) {
            for (int c = 0; c < 4; c++) sum[c] += (int32_t)p[k * 4 + c] * w[k];
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

// MARK: Premultiplied rows (portable)

/// Channel `c` of pixel `x` in the pair layout of `wi_resample_horizontal_premultiplied`.
#define WI_PAIR(pairs, x, c) (pairs)[((x) >> 1) * 8 + (c) * 2 + ((x) & 1)]

/// Pixels `from..<to` of `row` premultiplied into `pairs` (`x·a − 32768` per lane, 255 for
/// alpha's `x`). Returns whether their alpha bytes are all 255.
static int load_premultiplied_portable(const uint8_t *row, ptrdiff_t from, ptrdiff_t to, int16_t *pairs) {
    uint8_t alpha = 255;
    for (ptrdiff_t x = from; x < to; x++) {
        const uint8_t *p = row + x * 4;
        const int32_t a = p[3];
        alpha &= p[3];
        WI_PAIR(pairs, x, 0) = (int16_t)(p[0] * a - 32768);
        WI_PAIR(pairs, x, 1) = (int16_t)(p[1] * a - 32768);
        WI_PAIR(pairs, x, 2) = (int16_t)(p[2] * a - 32768);
        WI_PAIR(pairs, x, 3) = (int16_t)(255 * a - 32768);
    }
    return alpha == 255;
}

static void convolve_premultiplied_portable(
    const int16_t *pairs, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights,
    ptrdiff_t block_stride, float bias, float scale, float *out, int16_t *out16) {
    for (ptrdiff_t i = 0; i < outputs; i++) {
        int32_t sum[4] = {0, 0, 0, 0};
        for (ptrdiff_t k = 0; k < counts[i]; k++) {
            const int32_t w = tap(weights, block_stride, i, starts[i], k);
            const ptrdiff_t x = starts[i] + k;
            for (int c = 0; c < 4; c++) sum[c] += (int32_t)WI_PAIR(pairs, x, c) * w;
        }
        for (int c = 0; c < 4; c++) {
            const float v = ((float)sum[c] + bias) * scale;
            if (out16) {
                const long q = lrintf(v * 128.0f) - 16384;
                out16[i * 4 + c] = (int16_t)(q < -32768 ? -32768 : q > 32767 ? 32767 : q);
            } else {
                out[i * 4 + c] = v;
            }
        }
    }
}

/// Straight RGBA8 from a premultiplied pixel in 0…255 units, as the Swift `Premultiplied.store`:
/// transparent black when alpha is below 0.5, else each colour times 255 / min(alpha, 255),
/// plus 0.5, clamped to 0…255 and truncated.
static inline void unpremultiply_portable(const float v[4], uint8_t *out) {
    const float a = v[3];
    if (!(a >= 0.5f)) {
        out[0] = out[1] = out[2] = out[3] = 0;
        return;
    }
    const float s = 255.0f / (a < 255.0f ? a : 255.0f);
    for (int c = 0; c < 4; c++) {
        float r = v[c] * (c == 3 ? 1.0f : s) + 0.5f;
        r = r > 0.0f ? r : 0.0f;
        r = r < 255.0f ? r : 255.0f;
        out[c] = (uint8_t)r;
    }
}

/// `wi_resample_vertical_premultiplied` one pixel at a time.
static void vertical_premultiplied_portable(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, float scale, uint8_t *out) {
    for (ptrdiff_t x = 0; x < width; x++) {
        float v[4];
        for (int c = 0; c < 4; c++) {
            int32_t sum = 0;
            for (ptrdiff_t t = 0; t < pair_count; t++) {
                sum += (int32_t)rows[2 * t][x * 4 + c] * weights[8 * t] + (int32_t)rows[2 * t + 1][x * 4 + c] * weights[8 * t + 1];
            }
            v[c] = (float)sum * scale + 128.0f;
        }
        unpremultiply_portable(v, out + x * 4);
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

// MARK: AVX-512 VBMI + VNNI

#define WI_VNNI_TARGET "avx2,avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni"

/// The opaque horizontal pass in two steps. First the row's span is widened once into blocks of
/// eight pixels (from a multiple of eight) in channel lanes: 128-bit lane `c` of a block holds
/// channel `c` of its eight pixels as `int16`, in order, so `int32` entry `d` of a lane is the
/// pixel pair `2d`, `2d + 1`. Then each output's window is a run of whole blocks, and one block
/// times the packed weights broadcast to every lane (`[w₀ w₁ | w₂ w₃ | w₄ w₅ | w₆ w₇]`) is one
/// `vpdpwssd`: no reordering per tap, each pixel widened once rather than once per window that
/// reads it.

/// The byte permutation (`vpermb`, odd bytes zeroed by the mask `0x5555…`) from eight RGBA8
/// pixels in the low 32 bytes to a block in channel lanes.
__attribute__((target(WI_VNNI_TARGET)))
static inline __m512i lanes_order_vnni(void) {
    int8_t idx[64];
    for (int c = 0; c < 4; c++) {
        for (int x = 0; x < 8; x++) {
            idx[16 * c + 2 * x] = (int8_t)(4 * x + c);
            idx[16 * c + 2 * x + 1] = 0;
        }
    }
    return _mm512_loadu_si512(idx);
}

/// Pixels of blocks `first..<end` of `row` (`row_width` pixels; none is read past it, and the
/// missing ones are zero) into channel-lane blocks at `lanes`, block `first` first. Returns
/// whether pixels `lo..<hi` (within those blocks, `hi ≤ row_width`) all have alpha 255.
__attribute__((target(WI_VNNI_TARGET)))
static int widen_lanes_vnni(
    const uint8_t *row, ptrdiff_t row_width, ptrdiff_t first, ptrdiff_t end, ptrdiff_t lo, ptrdiff_t hi, int16_t *lanes) {
    // The mask's value hidden from the compiler: with it known, clang turns each zero-masked
    // `vpermb` into a two-table `vpermt2b` against a zero register, at half the throughput.
    __mmask64 even = 0x5555555555555555ull;
    __asm__("" : "+k"(even));
    const __m512i order = lanes_order_vnni();
    const __m256i opaque = _mm256_set1_epi8(-1);
    // Blocks wholly inside lo..<hi (so inside the row) without masks; the few at the edges
    // with them.
    const ptrdiff_t whole = (lo + 7) >> 3, wholeEnd = hi >> 3 > whole ? hi >> 3 : whole;
    __m256i all = opaque;
    for (ptrdiff_t b = whole; b < wholeEnd; b++) {
        const __m256i bytes = _mm256_loadu_si256((const __m256i *)(row + b * 32));
        all = _mm256_and_si256(all, bytes);
        _mm512_storeu_si512(lanes + (b - first) * 32, _mm512_maskz_permutexvar_epi8(even, order, _mm512_zextsi256_si512(bytes)));
    }
    __mmask32 alphas = _mm256_mask_cmpneq_epi8_mask(0x88888888u, all, opaque);  // alpha bytes that are not 255
    for (ptrdiff_t b = first; b < end; b++) {
        if (b == whole && wholeEnd > whole) {
            b = wholeEnd - 1;
            continue;
        }
        const ptrdiff_t x = b * 8;
        // The pixels of this block inside the row, and those inside lo..<hi, as byte masks.
        const ptrdiff_t have = row_width - x >= 8 ? 8 : row_width - x;
        const __mmask32 inside = have >= 8 ? 0xFFFFFFFFu : have <= 0 ? 0 : (__mmask32)((1u << (have * 4)) - 1);
        const ptrdiff_t from = lo > x ? lo - x : 0, to = hi - x < 8 ? hi - x : 8;
        const __mmask32 checked = to > from ? (__mmask32)((to >= 8 ? 0xFFFFFFFFu : (1u << (to * 4)) - 1) & ~((1u << (from * 4)) - 1))
                                            : 0;
        const __m256i bytes = _mm256_maskz_loadu_epi8(inside, row + x * 4);
        alphas |= _mm256_mask_cmpneq_epi8_mask(checked & 0x88888888u, bytes, opaque);
        _mm512_storeu_si512(lanes + (b - first) * 32, _mm512_maskz_permutexvar_epi8(even, order, _mm512_zextsi256_si512(bytes)));
    }
    return alphas == 0;
}

/// Four outputs' sums over `blocks` channel-lane blocks each from `p[j]`, with packed weights
/// from `w[j]` (zero past an output's own blocks, so a group runs as long as its longest
/// window); eight accumulators in flight. Returns channel `c` of output `j` in entry `4c + j`.
__attribute__((target(WI_VNNI_TARGET)))
static inline __m512i taps4_vnni(const int16_t *const p[4], const int16_t *const w[4], ptrdiff_t blocks) {
    __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512(), a2 = _mm512_setzero_si512();
    __m512i a3 = _mm512_setzero_si512(), b0 = _mm512_setzero_si512(), b1 = _mm512_setzero_si512();
    __m512i b2 = _mm512_setzero_si512(), b3 = _mm512_setzero_si512();
#define WI_TAP(J, A, B)                                                                                                \
    A = _mm512_dpwssd_epi32(A, _mm512_loadu_si512(p[J] + (B) * 32),                                                    \
        _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(w[J] + (B) * 8))))
    ptrdiff_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        WI_TAP(0, a0, b);
        WI_TAP(1, a1, b);
        WI_TAP(2, a2, b);
        WI_TAP(3, a3, b);
        WI_TAP(0, b0, b + 1);
        WI_TAP(1, b1, b + 1);
        WI_TAP(2, b2, b + 1);
        WI_TAP(3, b3, b + 1);
    }
    if (b < blocks) {
        WI_TAP(0, a0, b);
        WI_TAP(1, a1, b);
        WI_TAP(2, a2, b);
        WI_TAP(3, a3, b);
    }
#undef WI_TAP
    a0 = _mm512_add_epi32(a0, b0);
    a1 = _mm512_add_epi32(a1, b1);
    a2 = _mm512_add_epi32(a2, b2);
    a3 = _mm512_add_epi32(a3, b3);
    // Each lane (a channel) holds four partial sums per output: add entries 0 + 2 and 1 + 3 of
    // two outputs at once, then the two halves.
    const __m512i x = _mm512_add_epi32(_mm512_unpacklo_epi32(a0, a1), _mm512_unpackhi_epi32(a0, a1));
    const __m512i y = _mm512_add_epi32(_mm512_unpacklo_epi32(a2, a3), _mm512_unpackhi_epi32(a2, a3));
    return _mm512_add_epi32(_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y));
}

/// `wi_resample_horizontal_packed` at level 4: the blocks the plan's groups read widened into
/// `scratch` (aligned to 64 bytes inside it; at most `row_width / 4 + 2` blocks of 32 `int16`,
/// as a window starts inside the row and spans at most `(row_width + 14) / 8` blocks), then
/// four outputs at a time as the plan groups them.
__attribute__((target(WI_VNNI_TARGET)))
static int horizontal_vnni(
    const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const int32_t *plan, const int16_t *weights,
    ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch, int16_t *out, const uint8_t *next) {
    const ptrdiff_t lo = plan[0], hi = plan[1];
    const ptrdiff_t first = lo >> 3, end = plan[2];
    // The next row's span fetched into L2 a few lines per group, while this one computes: the
    // widening then finds it there instead of waiting on memory line by line.
    const char *fetch = next ? (const char *)next + lo * 4 : NULL, *fetchEnd = next ? (const char *)next + hi * 4 : NULL;
    const ptrdiff_t groups = (outputs + 3) / 4;
    const ptrdiff_t linesPerGroup = ((hi - lo) * 4 / 64 + groups) / groups + 1;
    int16_t *lanes = (int16_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    const int opaque = widen_lanes_vnni(row, row_width, first, end, lo, hi, lanes);
    if (!opaque) return 0;
    const __m512i half = _mm512_set1_epi32(1 << (shift - 1));
    const __m512i off = _mm512_set1_epi32(offset);
    const __m128i count = _mm_cvtsi32_si128(shift);
    // Entry 4c + j (channel c of output j) to 4j + c.
    const __m512i transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const int16_t *groupWeights = weights;
    const ptrdiff_t groupStride = 4 * block_stride * 8;
    const int32_t *g = plan + WI_PLAN_HEADER;
    for (ptrdiff_t i = 0; i < outputs; i += 4, g += WI_PLAN_GROUP, groupWeights += groupStride) {
        const int16_t *p[4], *w[4];
        for (int j = 0; j < 4; j++) {
            p[j] = lanes + (g[j] - first) * 32;
            w[j] = i + j < outputs ? groupWeights + j * block_stride * 8 : w[j - 1];
        }
        for (ptrdiff_t k = 0; k < linesPerGroup && fetch < fetchEnd; k++, fetch += 64) _mm_prefetch(fetch, _MM_HINT_T1);
        __m512i sum = taps4_vnni(p, w, g[4]);
        sum = _mm512_sub_epi32(_mm512_sra_epi32(_mm512_add_epi32(sum, half), count), off);
        // The low 16 bits of each entry (the Swift pass truncates the same way).
        const __m256i values = _mm512_cvtepi32_epi16(_mm512_permutexvar_epi32(transpose, sum));
        if (i + 4 <= outputs) {
            _mm256_storeu_si256((__m256i *)(out + i * 4), values);
        } else {
            int16_t tail[16];
            _mm256_storeu_si256((__m256i *)tail, values);
            memcpy(out + i * 4, tail, (size_t)(outputs - i) * 4 * sizeof(int16_t));
        }
    }
    return 1;
}

/// `load_premultiplied_portable` four pixels at a time: the bytes reordered into pairs,
/// widened, times `[a a a 255]` per pixel (the products fit 16 bits unsigned), then the sign
/// bit flipped, which subtracts 32768.
__attribute__((target("avx2")))
static int load_premultiplied_avx2(const uint8_t *row, ptrdiff_t from, ptrdiff_t to, int16_t *pairs) {
    const __m128i order = _mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    const __m256i alphas = _mm256_setr_epi8(
        12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, -1, -1, -1, -1,
        12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, -1, -1, -1, -1);
    const __m256i opaque = _mm256_setr_epi16(0, 0, 0, 0, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0, 255, 255);
    const __m256i flip = _mm256_set1_epi16((short)0x8000);
    __m128i all = _mm_set1_epi8(-1);
    ptrdiff_t x = from;
    for (; x + 4 <= to; x += 4) {
        const __m128i bytes = _mm_loadu_si128((const __m128i *)(row + x * 4));
        all = _mm_and_si128(all, bytes);
        const __m256i v = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(bytes, order));
        const __m256i m = _mm256_or_si256(_mm256_shuffle_epi8(v, alphas), opaque);
        _mm256_storeu_si256((__m256i *)(pairs + x * 4), _mm256_xor_si256(_mm256_mullo_epi16(v, m), flip));
    }
    const int allOpaque = (_mm_movemask_epi8(_mm_cmpeq_epi8(all, _mm_set1_epi8(-1))) & 0x8888) == 0x8888;
    return load_premultiplied_portable(row, x, to, pairs) && allOpaque;
}

/// One output's sums over `blocks` blocks of pair-layout values from `p` (the output's even
/// start): the layout is the weights', so there is nothing to reorder.
__attribute__((target("avx2")))
static inline __m128i pair_taps_avx2(const int16_t *p, const int16_t *weights, ptrdiff_t blocks) {
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    for (ptrdiff_t b = 0; b < blocks; b++) {
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(
            _mm256_loadu_si256((const __m256i *)(p + b * 32)), _mm256_loadu_si256((const __m256i *)(weights + b * 32))));
        acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(
            _mm256_loadu_si256((const __m256i *)(p + b * 32 + 16)),
            _mm256_loadu_si256((const __m256i *)(weights + b * 32 + 16))));
    }
    const __m256i acc = _mm256_add_epi32(acc0, acc1);
    return _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
}

__attribute__((target("avx2,avx512f,avx512bw")))
static inline __m128i pair_taps_avx512(const int16_t *p, const int16_t *weights, ptrdiff_t blocks) {
    __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
    ptrdiff_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        acc0 = _mm512_add_epi32(acc0, _mm512_madd_epi16(_mm512_loadu_si512(p + b * 32), _mm512_loadu_si512(weights + b * 32)));
        acc1 = _mm512_add_epi32(
            acc1, _mm512_madd_epi16(_mm512_loadu_si512(p + b * 32 + 32), _mm512_loadu_si512(weights + b * 32 + 32)));
    }
    if (b < blocks)
        acc0 = _mm512_add_epi32(acc0, _mm512_madd_epi16(_mm512_loadu_si512(p + b * 32), _mm512_loadu_si512(weights + b * 32)));
    const __m512i acc = _mm512_add_epi32(acc0, acc1);
    const __m256i quarter = _mm256_add_epi32(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
    return _mm_add_epi32(_mm256_castsi256_si128(quarter), _mm256_extracti128_si256(quarter, 1));
}

#define WI_PREMULTIPLIED_BODY(TAPS)                                                                                 \
    const __m128 biases = _mm_set1_ps(bias), scales = _mm_set1_ps(scale);                                          \
    for (ptrdiff_t i = 0; i < outputs; i++) {                                                                       \
        const ptrdiff_t start = starts[i] & ~(ptrdiff_t)1;                                                          \
        const ptrdiff_t blocks = (counts[i] + (starts[i] & 1) + 7) / 8;                                             \
        const __m128i sum = TAPS(pairs + start * 4, weights + i * block_stride * 32, blocks);                       \
        const __m128 v = _mm_mul_ps(_mm_add_ps(_mm_cvtepi32_ps(sum), biases), scales);                             \
        if (out16) {                                                                                                \
            const __m128i q = _mm_sub_epi32(_mm_cvtps_epi32(_mm_mul_ps(v, _mm_set1_ps(128.0f))), _mm_set1_epi32(16384)); \
            _mm_storel_epi64((__m128i *)(out16 + i * 4), _mm_packs_epi32(q, q));                                    \
        } else {                                                                                                    \
            _mm_storeu_ps(out + i * 4, v);                                                                          \
        }                                                                                                           \
    }

__attribute__((target("avx2")))
static void convolve_premultiplied_avx2(
    const int16_t *pairs, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights,
    ptrdiff_t block_stride, float bias, float scale, float *out, int16_t *out16) {
    WI_PREMULTIPLIED_BODY(pair_taps_avx2)
}

__attribute__((target("avx2,avx512f,avx512bw")))
static void convolve_premultiplied_avx512(
    const int16_t *pairs, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights,
    ptrdiff_t block_stride, float bias, float scale, float *out, int16_t *out16) {
    WI_PREMULTIPLIED_BODY(pair_taps_avx512)
}

#undef WI_PREMULTIPLIED_BODY

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

/// `taps4_vnni` over two rows at once (channel-lane blocks at `p[j]` and `p[j] + second`),
/// sharing each weight broadcast: the sums of row 0 in `*sum0`, of row 1 in `*sum1`.
__attribute__((target(WI_VNNI_TARGET)))
static inline void taps4x2_vnni(const int16_t *const p[4], ptrdiff_t second, const int16_t *const w[4], ptrdiff_t blocks,
                                __m512i *sum0, __m512i *sum1) {
    __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512(), a2 = _mm512_setzero_si512();
    __m512i a3 = _mm512_setzero_si512(), c0 = _mm512_setzero_si512(), c1 = _mm512_setzero_si512();
    __m512i c2 = _mm512_setzero_si512(), c3 = _mm512_setzero_si512();
#define WI_TAP2(J, A, C)                                                                                               \
    do {                                                                                                               \
        const __m512i weight = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(w[J] + b * 8)));              \
        A = _mm512_dpwssd_epi32(A, _mm512_loadu_si512(p[J] + b * 32), weight);                                         \
        C = _mm512_dpwssd_epi32(C, _mm512_loadu_si512(p[J] + second + b * 32), weight);                                \
    } while (0)
    for (ptrdiff_t b = 0; b < blocks; b++) {
        WI_TAP2(0, a0, c0);
        WI_TAP2(1, a1, c1);
        WI_TAP2(2, a2, c2);
        WI_TAP2(3, a3, c3);
    }
#undef WI_TAP2
    __m512i x = _mm512_add_epi32(_mm512_unpacklo_epi32(a0, a1), _mm512_unpackhi_epi32(a0, a1));
    __m512i y = _mm512_add_epi32(_mm512_unpacklo_epi32(a2, a3), _mm512_unpackhi_epi32(a2, a3));
    *sum0 = _mm512_add_epi32(_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y));
    x = _mm512_add_epi32(_mm512_unpacklo_epi32(c0, c1), _mm512_unpackhi_epi32(c0, c1));
    y = _mm512_add_epi32(_mm512_unpacklo_epi32(c2, c3), _mm512_unpackhi_epi32(c2, c3));
    *sum1 = _mm512_add_epi32(_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y));
}

/// `horizontal_vnni` over two rows at once (`taps4x2_vnni`), both widened into `scratch` first.
/// Returns 0 as soon as either is found not opaque.
__attribute__((target(WI_VNNI_TARGET)))
static int horizontal2_vnni(
    const uint8_t *row0, const uint8_t *row1, ptrdiff_t row_width, ptrdiff_t outputs, const int32_t *plan,
    const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch, int16_t *out0,
    int16_t *out1, const uint8_t *next) {
    const ptrdiff_t lo = plan[0], hi = plan[1];
    const ptrdiff_t first = lo >> 3, end = plan[2];
    // The next two rows (`next` and the one after it in memory; prefetching never faults, even
    // past the image) fetched into L2 while these two compute.
    uintptr_t fetch = next ? (uintptr_t)next + (uintptr_t)lo * 4 : 0;
    const uintptr_t fetchEnd = next ? (uintptr_t)next + (uintptr_t)(row_width + hi) * 4 : 0;
    const ptrdiff_t groups = (outputs + 3) / 4;
    const ptrdiff_t linesPerGroup = ((row_width + hi - lo) * 4 / 64 + groups) / groups + 1;
    int16_t *lanes = (int16_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    const ptrdiff_t second = (end - first) * 32;
    if (!widen_lanes_vnni(row0, row_width, first, end, lo, hi, lanes)) return 0;
    if (!widen_lanes_vnni(row1, row_width, first, end, lo, hi, lanes + second)) return 0;
    const __m512i half = _mm512_set1_epi32(1 << (shift - 1));
    const __m512i off = _mm512_set1_epi32(offset);
    const __m128i count = _mm_cvtsi32_si128(shift);
    const __m512i transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const int16_t *groupWeights = weights;
    const ptrdiff_t groupStride = 4 * block_stride * 8;
    const int32_t *g = plan + WI_PLAN_HEADER;
    for (ptrdiff_t i = 0; i < outputs; i += 4, g += WI_PLAN_GROUP, groupWeights += groupStride) {
        const int16_t *p[4], *w[4];
        for (int j = 0; j < 4; j++) {
            p[j] = lanes + (g[j] - first) * 32;
            w[j] = i + j < outputs ? groupWeights + j * block_stride * 8 : w[j - 1];
        }
        for (ptrdiff_t k = 0; k < linesPerGroup && fetch < fetchEnd; k++, fetch += 64)
            _mm_prefetch((const char *)fetch, _MM_HINT_T1);
        __m512i sum0, sum1;
        taps4x2_vnni(p, second, w, g[4], &sum0, &sum1);
        sum0 = _mm512_sub_epi32(_mm512_sra_epi32(_mm512_add_epi32(sum0, half), count), off);
        sum1 = _mm512_sub_epi32(_mm512_sra_epi32(_mm512_add_epi32(sum1, half), count), off);
        const __m256i values0 = _mm512_cvtepi32_epi16(_mm512_permutexvar_epi32(transpose, sum0));
        const __m256i values1 = _mm512_cvtepi32_epi16(_mm512_permutexvar_epi32(transpose, sum1));
        if (i + 4 <= outputs) {
            _mm256_storeu_si256((__m256i *)(out0 + i * 4), values0);
            _mm256_storeu_si256((__m256i *)(out1 + i * 4), values1);
        } else {
            int16_t tail[32];
            _mm256_storeu_si256((__m256i *)tail, values0);
            _mm256_storeu_si256((__m256i *)(tail + 16), values1);
            memcpy(out0 + i * 4, tail, (size_t)(outputs - i) * 4 * sizeof(int16_t));
            memcpy(out1 + i * 4, tail + 16, (size_t)(outputs - i) * 4 * sizeof(int16_t));
        }
    }
    return 1;
}

/// `widen_lanes_vnni` for rows with transparency: each pixel premultiplied exactly, as the
/// `int16` values `x·a − 32768` (`x` its red, green, blue, and 255 for alpha; as
/// `load_premultiplied_portable`), in channel lanes. Pixels missing past the row come out as
/// −32768 (only zero weights reach them). Returns whether pixels `lo..<hi` all have alpha 255.
__attribute__((target(WI_VNNI_TARGET)))
static int premultiply_lanes_vnni(
    const uint8_t *row, ptrdiff_t row_width, ptrdiff_t first, ptrdiff_t end, ptrdiff_t lo, ptrdiff_t hi, int16_t *lanes) {
    __mmask64 even = 0x5555555555555555ull;
    __asm__("" : "+k"(even));
    const __m512i order = lanes_order_vnni();
    // Every lane: the eight alpha bytes widened.
    int8_t idx[64];
    for (int c = 0; c < 4; c++)
        for (int x = 0; x < 8; x++) idx[16 * c + 2 * x] = (int8_t)(4 * x + 3), idx[16 * c + 2 * x + 1] = 0;
    const __m512i alphaOrder = _mm512_loadu_si512(idx);
    const __m512i full = _mm512_set1_epi16(255), flip = _mm512_set1_epi16((short)0x8000);
    const __m256i opaque = _mm256_set1_epi8(-1);
    // Lane 3 (alpha) multiplies 255 by alpha; the products fit 16 bits unsigned.
#define WI_PREMULTIPLY(B, BYTES)                                                                                       \
    _mm512_storeu_si512(lanes + ((B) - first) * 32,                                                                    \
        _mm512_xor_si512(_mm512_mullo_epi16(                                                                            \
            _mm512_mask_mov_epi16(_mm512_maskz_permutexvar_epi8(even, order, BYTES), 0xFF000000u, full),               \
            _mm512_maskz_permutexvar_epi8(even, alphaOrder, BYTES)), flip))
    const ptrdiff_t whole = (lo + 7) >> 3, wholeEnd = hi >> 3 > whole ? hi >> 3 : whole;
    __m256i all = opaque;
    for (ptrdiff_t b = whole; b < wholeEnd; b++) {
        const __m256i bytes = _mm256_loadu_si256((const __m256i *)(row + b * 32));
        all = _mm256_and_si256(all, bytes);
        WI_PREMULTIPLY(b, _mm512_zextsi256_si512(bytes));
    }
    __mmask32 alphas = _mm256_mask_cmpneq_epi8_mask(0x88888888u, all, opaque);
    for (ptrdiff_t b = first; b < end; b++) {
        if (b == whole && wholeEnd > whole) {
            b = wholeEnd - 1;
            continue;
        }
        const ptrdiff_t x = b * 8;
        const ptrdiff_t have = row_width - x >= 8 ? 8 : row_width - x;
        const __mmask32 inside = have >= 8 ? 0xFFFFFFFFu : have <= 0 ? 0 : (__mmask32)((1u << (have * 4)) - 1);
        const ptrdiff_t from = lo > x ? lo - x : 0, to = hi - x < 8 ? hi - x : 8;
        const __mmask32 checked = to > from ? (__mmask32)((to >= 8 ? 0xFFFFFFFFu : (1u << (to * 4)) - 1) & ~((1u << (from * 4)) - 1))
                                            : 0;
        const __m256i bytes = _mm256_maskz_loadu_epi8(inside, row + x * 4);
        alphas |= _mm256_mask_cmpneq_epi8_mask(checked & 0x88888888u, bytes, opaque);
        WI_PREMULTIPLY(b, _mm512_zextsi256_si512(bytes));
    }
#undef WI_PREMULTIPLY
    return alphas == 0;
}

/// `wi_resample_horizontal_premultiplied16_packed` at level 4: the blocks the plan's groups read
/// premultiplied into `scratch` (as `horizontal_vnni` widens them), four outputs at a time, and
/// the sums to `int16` with the float steps of `convolve_premultiplied_avx2`.
__attribute__((target(WI_VNNI_TARGET)))
static int horizontal_premultiplied_vnni(
    const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const int32_t *plan, const int16_t *weights,
    ptrdiff_t block_stride, float bias, float scale, int16_t *scratch, int16_t *out, const uint8_t *next) {
    const ptrdiff_t lo = plan[0], hi = plan[1];
    const ptrdiff_t first = lo >> 3, end = plan[2];
    const char *fetch = next ? (const char *)next + lo * 4 : NULL, *fetchEnd = next ? (const char *)next + hi * 4 : NULL;
    const ptrdiff_t groups = (outputs + 3) / 4;
    const ptrdiff_t linesPerGroup = ((hi - lo) * 4 / 64 + groups) / groups + 1;
    int16_t *lanes = (int16_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    const int opaque = premultiply_lanes_vnni(row, row_width, first, end, lo, hi, lanes);
    const __m512 biases = _mm512_set1_ps(bias), scales = _mm512_set1_ps(scale), times = _mm512_set1_ps(128.0f);
    const __m512i center = _mm512_set1_epi32(16384);
    const __m512i transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const int16_t *groupWeights = weights;
    const ptrdiff_t groupStride = 4 * block_stride * 8;
    const int32_t *g = plan + WI_PLAN_HEADER;
    for (ptrdiff_t i = 0; i < outputs; i += 4, g += WI_PLAN_GROUP, groupWeights += groupStride) {
        const int16_t *p[4], *w[4];
        for (int j = 0; j < 4; j++) {
            p[j] = lanes + (g[j] - first) * 32;
            w[j] = i + j < outputs ? groupWeights + j * block_stride * 8 : w[j - 1];
        }
        for (ptrdiff_t k = 0; k < linesPerGroup && fetch < fetchEnd; k++, fetch += 64) _mm_prefetch(fetch, _MM_HINT_T1);
        const __m512i sum = _mm512_permutexvar_epi32(transpose, taps4_vnni(p, w, g[4]));
        const __m512 v = _mm512_mul_ps(_mm512_add_ps(_mm512_cvtepi32_ps(sum), biases), scales);
        const __m512i q = _mm512_sub_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(v, times)), center);
        const __m256i values = _mm512_cvtsepi32_epi16(q);
        if (i + 4 <= outputs) {
            _mm256_storeu_si256((__m256i *)(out + i * 4), values);
        } else {
            int16_t tail[16];
            _mm256_storeu_si256((__m256i *)tail, values);
            memcpy(out + i * 4, tail, (size_t)(outputs - i) * 4 * sizeof(int16_t));
        }
    }
    return opaque;
}

/// `horizontal_premultiplied_vnni` over two rows at once (`taps4x2_vnni`), both premultiplied
/// into `scratch` first. Returns whether both rows' spans are opaque.
__attribute__((target(WI_VNNI_TARGET)))
static int horizontal2_premultiplied_vnni(
    const uint8_t *row0, const uint8_t *row1, ptrdiff_t row_width, ptrdiff_t outputs, const int32_t *plan,
    const int16_t *weights, ptrdiff_t block_stride, float bias, float scale, int16_t *scratch, int16_t *out0,
    int16_t *out1, const uint8_t *next) {
    const ptrdiff_t lo = plan[0], hi = plan[1];
    const ptrdiff_t first = lo >> 3, end = plan[2];
    uintptr_t fetch = next ? (uintptr_t)next + (uintptr_t)lo * 4 : 0;
    const uintptr_t fetchEnd = next ? (uintptr_t)next + (uintptr_t)(row_width + hi) * 4 : 0;
    const ptrdiff_t groups = (outputs + 3) / 4;
    const ptrdiff_t linesPerGroup = ((row_width + hi - lo) * 4 / 64 + groups) / groups + 1;
    int16_t *lanes = (int16_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    const ptrdiff_t second = (end - first) * 32;
    const int opaque0 = premultiply_lanes_vnni(row0, row_width, first, end, lo, hi, lanes);
    const int opaque1 = premultiply_lanes_vnni(row1, row_width, first, end, lo, hi, lanes + second);
    const __m512 biases = _mm512_set1_ps(bias), scales = _mm512_set1_ps(scale), times = _mm512_set1_ps(128.0f);
    const __m512i center = _mm512_set1_epi32(16384);
    const __m512i transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const int16_t *groupWeights = weights;
    const ptrdiff_t groupStride = 4 * block_stride * 8;
    const int32_t *g = plan + WI_PLAN_HEADER;
#define WI_VALUES(SUM)                                                                                                 \
    _mm512_cvtsepi32_epi16(_mm512_sub_epi32(                                                                           \
        _mm512_cvtps_epi32(_mm512_mul_ps(                                                                              \
            _mm512_mul_ps(_mm512_add_ps(_mm512_cvtepi32_ps(_mm512_permutexvar_epi32(transpose, SUM)), biases), scales), \
            times)),                                                                                                   \
        center))
    for (ptrdiff_t i = 0; i < outputs; i += 4, g += WI_PLAN_GROUP, groupWeights += groupStride) {
        const int16_t *p[4], *w[4];
        for (int j = 0; j < 4; j++) {
            p[j] = lanes + (g[j] - first) * 32;
            w[j] = i + j < outputs ? groupWeights + j * block_stride * 8 : w[j - 1];
        }
        for (ptrdiff_t k = 0; k < linesPerGroup && fetch < fetchEnd; k++, fetch += 64)
            _mm_prefetch((const char *)fetch, _MM_HINT_T1);
        __m512i sum0, sum1;
        taps4x2_vnni(p, second, w, g[4], &sum0, &sum1);
        const __m256i values0 = WI_VALUES(sum0), values1 = WI_VALUES(sum1);
        if (i + 4 <= outputs) {
            _mm256_storeu_si256((__m256i *)(out0 + i * 4), values0);
            _mm256_storeu_si256((__m256i *)(out1 + i * 4), values1);
        } else {
            int16_t tail[32];
            _mm256_storeu_si256((__m256i *)tail, values0);
            _mm256_storeu_si256((__m256i *)(tail + 16), values1);
            memcpy(out0 + i * 4, tail, (size_t)(outputs - i) * 4 * sizeof(int16_t));
            memcpy(out1 + i * 4, tail + 16, (size_t)(outputs - i) * 4 * sizeof(int16_t));
        }
    }
#undef WI_VALUES
    return opaque0 && opaque1;
}

/// `vertical_avx2` on 512-bit registers without reordering: each row's `int16` values are
/// multiplied in place, once by `[w 0]` (the even channels, red and blue, into their `int32`
/// entries) and once by `[0 w]` (green and alpha), as a `vpdpwssd` with the weight broadcast
/// from memory; the two sums are joined back into pixels once per 16 pixels, not once per row.
/// The last pixels run under masks.
__attribute__((target(WI_VNNI_TARGET)))
static void vertical_vnni(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    // Each row's weight as [w 0] and [0 w] int32 patterns (the dispatch keeps pair_count ≤ 64).
    int32_t even[128], odd[128];
    const ptrdiff_t count = 2 * pair_count;
    for (ptrdiff_t k = 0; k < count; k++) {
        const uint16_t w = (uint16_t)weights[8 * (k / 2) + k % 2];
        even[k] = (int32_t)w;
        odd[k] = (int32_t)((uint32_t)w << 16);
    }
    const __m512i half = _mm512_set1_epi32(1 << (shift - 1));
    const __m512i bias = _mm512_set1_epi32(128);
    const __m128i bits = _mm_cvtsi32_si128(shift);
    const __m512i zero = _mm512_setzero_si512(), top = _mm512_set1_epi32(255);
    // packus_epi16 leaves 128-bit lanes as [0 | 1 | 2 | 3] of the first and second source
    // interleaved: put the pixels back in order.
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    for (ptrdiff_t x = 0; x < width; x += 16) {
        const ptrdiff_t n = width - x < 16 ? width - x : 16;
        // 16 pixels are 64 int16: two registers; under masks for the last pixels.
        const __mmask32 m0 = n >= 8 ? 0xFFFFFFFFu : (__mmask32)((1u << (n * 4)) - 1);
        const __mmask32 m1 = n >= 16 ? 0xFFFFFFFFu : n <= 8 ? 0 : (__mmask32)((1u << ((n - 8) * 4)) - 1);
        __m512i e0 = zero, o0 = zero, e1 = zero, o1 = zero;  // even rows
        __m512i e2 = zero, o2 = zero, e3 = zero, o3 = zero;  // odd rows
        for (ptrdiff_t k = 0; k < count; k += 2) {
            const int16_t *r0 = rows[k] + x * 4, *r1 = rows[k + 1] + x * 4;
            const __m512i p0 = _mm512_maskz_loadu_epi16(m0, r0), p1 = _mm512_maskz_loadu_epi16(m1, r0 + 32);
            const __m512i q0 = _mm512_maskz_loadu_epi16(m0, r1), q1 = _mm512_maskz_loadu_epi16(m1, r1 + 32);
            const __m512i we = _mm512_set1_epi32(even[k]), wo = _mm512_set1_epi32(odd[k]);
            const __m512i ve = _mm512_set1_epi32(even[k + 1]), vo = _mm512_set1_epi32(odd[k + 1]);
            e0 = _mm512_dpwssd_epi32(e0, p0, we);
            o0 = _mm512_dpwssd_epi32(o0, p0, wo);
            e1 = _mm512_dpwssd_epi32(e1, p1, we);
            o1 = _mm512_dpwssd_epi32(o1, p1, wo);
            e2 = _mm512_dpwssd_epi32(e2, q0, ve);
            o2 = _mm512_dpwssd_epi32(o2, q0, vo);
            e3 = _mm512_dpwssd_epi32(e3, q1, ve);
            o3 = _mm512_dpwssd_epi32(o3, q1, vo);
        }
#define WI_ROUND(A, B)                                                                                                 \
    _mm512_min_epi32(_mm512_max_epi32(                                                                                 \
        _mm512_add_epi32(_mm512_sra_epi32(_mm512_add_epi32(_mm512_add_epi32(A, B), half), bits), bias), zero), top)
        // Red and blue in the low half of each int32, green and alpha in the high half: the
        // pixels' four int16 channels again, now 0…255.
        const __m512i lo = _mm512_or_si512(WI_ROUND(e0, e2), _mm512_slli_epi32(WI_ROUND(o0, o2), 16));
        const __m512i hi = _mm512_or_si512(WI_ROUND(e1, e3), _mm512_slli_epi32(WI_ROUND(o1, o3), 16));
#undef WI_ROUND
        const __m512i bytes = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(lo, hi));
        _mm512_mask_storeu_epi8(out + x * 4, n >= 16 ? ~(__mmask64)0 : (((__mmask64)1 << (n * 4)) - 1), bytes);
    }
}

/// `unpremultiply_avx2` on four pixels (one per 128-bit lane), with `s` each lane's
/// `255 / min(alpha, 255)` (made for 16 pixels by one division).
__attribute__((target(WI_VNNI_TARGET)))
static inline __m512i unpremultiply_vnni(__m512 v, __m512 s) {
    const __m512 alpha = _mm512_permute_ps(v, 0xFF);
    const __m512 m = _mm512_mask_blend_ps(0x8888, s, _mm512_set1_ps(1.0f));
    __m512 r = _mm512_add_ps(_mm512_mul_ps(v, m), _mm512_set1_ps(0.5f));
    r = _mm512_min_ps(_mm512_max_ps(r, _mm512_setzero_ps()), _mm512_set1_ps(255.0f));
    const __mmask16 visible = _mm512_cmp_ps_mask(alpha, _mm512_set1_ps(0.5f), _CMP_GE_OQ);
    return _mm512_cvttps_epi32(_mm512_maskz_mov_ps(visible, r));
}

/// `vertical_premultiplied_avx2` as `vertical_vnni` sums (rows multiplied in place by `[w 0]`
/// and `[0 w]`), then each pixel's sums to floats and divided by its alpha as there.
__attribute__((target(WI_VNNI_TARGET)))
static void vertical_premultiplied_vnni(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, float scale, uint8_t *out) {
    int32_t even[128], odd[128];
    const ptrdiff_t count = 2 * pair_count;
    for (ptrdiff_t k = 0; k < count; k++) {
        const uint16_t w = (uint16_t)weights[8 * (k / 2) + k % 2];
        even[k] = (int32_t)w;
        odd[k] = (int32_t)((uint32_t)w << 16);
    }
    const __m512 scales = _mm512_set1_ps(scale), bias = _mm512_set1_ps(128.0f);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    const __m512i oddEntries = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512i pixel0 = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
    const __m512i pixel1 = _mm512_add_epi32(pixel0, _mm512_set1_epi32(1));
    const __m512i pixel8 = _mm512_add_epi32(pixel0, _mm512_set1_epi32(8));
    const __m512i pixel9 = _mm512_add_epi32(pixel0, _mm512_set1_epi32(9));
    for (ptrdiff_t x = 0; x < width; x += 16) {
        const ptrdiff_t n = width - x < 16 ? width - x : 16;
        const __mmask32 m0 = n >= 8 ? 0xFFFFFFFFu : (__mmask32)((1u << (n * 4)) - 1);
        const __mmask32 m1 = n >= 16 ? 0xFFFFFFFFu : n <= 8 ? 0 : (__mmask32)((1u << ((n - 8) * 4)) - 1);
        __m512i e0 = zero, o0 = zero, e1 = zero, o1 = zero;
        __m512i e2 = zero, o2 = zero, e3 = zero, o3 = zero;
        for (ptrdiff_t k = 0; k < count; k += 2) {
            const int16_t *r0 = rows[k] + x * 4, *r1 = rows[k + 1] + x * 4;
            const __m512i p0 = _mm512_maskz_loadu_epi16(m0, r0), p1 = _mm512_maskz_loadu_epi16(m1, r0 + 32);
            const __m512i q0 = _mm512_maskz_loadu_epi16(m0, r1), q1 = _mm512_maskz_loadu_epi16(m1, r1 + 32);
            const __m512i we = _mm512_set1_epi32(even[k]), wo = _mm512_set1_epi32(odd[k]);
            const __m512i ve = _mm512_set1_epi32(even[k + 1]), vo = _mm512_set1_epi32(odd[k + 1]);
            e0 = _mm512_dpwssd_epi32(e0, p0, we);
            o0 = _mm512_dpwssd_epi32(o0, p0, wo);
            e1 = _mm512_dpwssd_epi32(e1, p1, we);
            o1 = _mm512_dpwssd_epi32(o1, p1, wo);
            e2 = _mm512_dpwssd_epi32(e2, q0, ve);
            o2 = _mm512_dpwssd_epi32(o2, q0, vo);
            e3 = _mm512_dpwssd_epi32(e3, q1, ve);
            o3 = _mm512_dpwssd_epi32(o3, q1, vo);
        }
        // Red and blue sums in e, green and alpha in o, as floats.
#define WI_FLOAT(S) _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(S), scales), bias)
        const __m512 fe0 = WI_FLOAT(_mm512_add_epi32(e0, e2)), fo0 = WI_FLOAT(_mm512_add_epi32(o0, o2));
        const __m512 fe1 = WI_FLOAT(_mm512_add_epi32(e1, e3)), fo1 = WI_FLOAT(_mm512_add_epi32(o1, o3));
#undef WI_FLOAT
        // The 16 alphas (odd entries of o) together, one division for all, then each back to
        // the lane of its pixel: pixels 0, 2, 4, 6 (one per lane), 1, 3, 5, 7, 8, …, 9, ….
        const __m512 alphas = _mm512_permutex2var_ps(fo0, oddEntries, fo1);
        const __m512 sixteen = _mm512_div_ps(_mm512_set1_ps(255.0f), _mm512_min_ps(alphas, _mm512_set1_ps(255.0f)));
        const __m512i a = unpremultiply_vnni(_mm512_unpacklo_ps(fe0, fo0), _mm512_permutexvar_ps(pixel0, sixteen));
        const __m512i b = unpremultiply_vnni(_mm512_unpackhi_ps(fe0, fo0), _mm512_permutexvar_ps(pixel1, sixteen));
        const __m512i c = unpremultiply_vnni(_mm512_unpacklo_ps(fe1, fo1), _mm512_permutexvar_ps(pixel8, sixteen));
        const __m512i d = unpremultiply_vnni(_mm512_unpackhi_ps(fe1, fo1), _mm512_permutexvar_ps(pixel9, sixteen));
        // Lane k: pixels 2k, 2k + 1 as int16, then bytes with pixels 8 + 2k, 9 + 2k; in order.
        const __m512i bytes = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d)));
        _mm512_mask_storeu_epi8(out + x * 4, n >= 16 ? ~(__mmask64)0 : (((__mmask64)1 << (n * 4)) - 1), bytes);
    }
}

/// Two pixels' premultiplied values (one per 128-bit lane) as straight RGBA8 in the low bytes
/// of each int32, as `unpremultiply_portable`.
__attribute__((target("avx2")))
static inline __m256i unpremultiply_avx2(__m256 v) {
    const __m256 alpha = _mm256_permute_ps(v, 0xFF);
    const __m256 s = _mm256_div_ps(_mm256_set1_ps(255.0f), _mm256_min_ps(alpha, _mm256_set1_ps(255.0f)));
    const __m256 m = _mm256_blend_ps(s, _mm256_set1_ps(1.0f), 0x88);
    __m256 r = _mm256_add_ps(_mm256_mul_ps(v, m), _mm256_set1_ps(0.5f));
    r = _mm256_min_ps(_mm256_max_ps(r, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
    r = _mm256_and_ps(r, _mm256_cmp_ps(alpha, _mm256_set1_ps(0.5f), _CMP_GE_OQ));
    return _mm256_cvttps_epi32(r);
}

__attribute__((target("avx2")))
static void vertical_premultiplied_avx2(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, float scale, uint8_t *out) {
    const __m256 scales = _mm256_set1_ps(scale), bias = _mm256_set1_ps(128.0f);
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    ptrdiff_t x = 0;
    // As `vertical_avx2`, then each pixel's sums to floats and divided by its alpha.
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
        a0 = unpremultiply_avx2(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a0), scales), bias));
        a1 = unpremultiply_avx2(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a1), scales), bias));
        a2 = unpremultiply_avx2(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a2), scales), bias));
        a3 = unpremultiply_avx2(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a3), scales), bias));
        const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(a0, a1), _mm256_packs_epi32(a2, a3));
        _mm256_storeu_si256((__m256i *)(out + x * 4), _mm256_permutevar8x32_epi32(bytes, order));
    }
    if (x < width) {
        const int16_t *tails[2 * 64];
        for (ptrdiff_t t = 0; t < 2 * pair_count; t++) tails[t] = rows[t] + x * 4;
        vertical_premultiplied_portable(tails, weights, pair_count, width - x, scale, out + x * 4);
    }
}

#endif

// MARK: NEON (arm64; `make neon-check` runs it on x86-64 under qemu against the x86-64 sets)

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
    if (!__builtin_cpu_supports("avx512bw")) return 1;
    if (forced && strcmp(forced, "avx512bw") == 0) return 3;
    return __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vnni") ? 4 : 3;
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
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level >= 3) {
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

int wi_resample_horizontal_packed(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset, int16_t *scratch,
    int16_t *out, const uint8_t *next) {
    if (outputs <= 0) return 1;
#if WI_X86
    if (level > wi_resample_kernels_level()) level = 0;
    if (level == 4) {
        return horizontal_vnni(row, row_width, outputs, plan, weights, block_stride, shift, offset, scratch, out, next);
    }
#endif
    (void)level;
    (void)plan;
    (void)next;
    (void)row_width;
    (void)scratch;
    return horizontal_portable_packed(row, outputs, starts, counts, weights, block_stride, shift, offset, out);
}

static int horizontal_premultiplied(
    int level, const uint8_t *row, ptrdiff_t span_start, ptrdiff_t span_end, ptrdiff_t outputs,
    const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights, ptrdiff_t block_stride, int precision,
    int16_t *pairs, float *out, int16_t *out16) {
    if (outputs <= 0) return 1;
    // The same two constants for every kernel set, so that they all round alike.
    const float bias = (float)((int64_t)32768 << precision);
    const float scale = (float)(1.0 / (255.0 * (double)((int64_t)1 << precision)));
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 1 || level >= 3) {
        const int opaque = load_premultiplied_avx2(row, span_start, span_end, pairs);
        if (level >= 3) {
            convolve_premultiplied_avx512(pairs, outputs, starts, counts, weights, block_stride, bias, scale, out, out16);
        } else {
            convolve_premultiplied_avx2(pairs, outputs, starts, counts, weights, block_stride, bias, scale, out, out16);
        }
        return opaque;
    }
#endif
    const int opaque = load_premultiplied_portable(row, span_start, span_end, pairs);
    convolve_premultiplied_portable(pairs, outputs, starts, counts, weights, block_stride, bias, scale, out, out16);
    return opaque;
}

int wi_resample_horizontal_premultiplied(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t span_start, ptrdiff_t span_end, ptrdiff_t outputs,
    const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights, ptrdiff_t block_stride, int precision,
    int16_t *pairs, float *out) {
    (void)row_width;
    return horizontal_premultiplied(
        level, row, span_start, span_end, outputs, starts, counts, weights, block_stride, precision, pairs, out, NULL);
}

int wi_resample_horizontal_premultiplied16(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t span_start, ptrdiff_t span_end, ptrdiff_t outputs,
    const ptrdiff_t *starts, const ptrdiff_t *counts, const int16_t *weights, ptrdiff_t block_stride, int precision,
    int16_t *pairs, int16_t *out) {
    (void)row_width;
    return horizontal_premultiplied(
        level, row, span_start, span_end, outputs, starts, counts, weights, block_stride, precision, pairs, NULL, out);
}

int wi_resample_horizontal_packed2(
    int level, const uint8_t *row0, const uint8_t *row1, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts,
    const ptrdiff_t *counts, const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int shift, int32_t offset,
    int16_t *scratch, int16_t *out0, int16_t *out1, const uint8_t *next) {
    if (outputs <= 0) return 1;
#if WI_X86
    if (level > wi_resample_kernels_level()) level = 0;
    if (level == 4) {
        return horizontal2_vnni(
            row0, row1, row_width, outputs, plan, weights, block_stride, shift, offset, scratch, out0, out1, next);
    }
#endif
    return wi_resample_horizontal_packed(
               level, row0, row_width, outputs, starts, counts, plan, weights, block_stride, shift, offset, scratch, out0, row1)
        && wi_resample_horizontal_packed(
            level, row1, row_width, outputs, starts, counts, plan, weights, block_stride, shift, offset, scratch, out1, next);
}

int wi_resample_horizontal_premultiplied16_packed(
    int level, const uint8_t *row, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts, const ptrdiff_t *counts,
    const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int precision, int16_t *scratch, int16_t *out,
    const uint8_t *next) {
    if (outputs <= 0) return 1;
    // The constants of `horizontal_premultiplied`, so that every path rounds alike.
    const float bias = (float)((int64_t)32768 << precision);
    const float scale = (float)(1.0 / (255.0 * (double)((int64_t)1 << precision)));
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 4) {
        return horizontal_premultiplied_vnni(row, row_width, outputs, plan, weights, block_stride, bias, scale, scratch, out, next);
    }
#endif
    (void)row_width;
    (void)plan;
    (void)scratch;
    (void)next;
    // Portable: each tap premultiplied where it is read.
    uint8_t alpha = 255;
    ptrdiff_t checked = first_start(starts, outputs);
    for (ptrdiff_t i = 0; i < outputs; i++) {
        int32_t sum[4] = {0, 0, 0, 0};
        const int16_t *w = weights + i * block_stride * 8 + (starts[i] & 7);
        for (ptrdiff_t k = 0; k < counts[i]; k++) {
            const uint8_t *px = row + (starts[i] + k) * 4;
            for (int c = 0; c < 4; c++) sum[c] += (int32_t)(int16_t)((c == 3 ? 255 : px[c]) * px[3] - 32768) * w[k];
        }
        for (int c = 0; c < 4; c++) {
            const float v = ((float)sum[c] + bias) * scale;
            const long q = lrintf(v * 128.0f) - 16384;
            out[i * 4 + c] = (int16_t)(q < -32768 ? -32768 : q > 32767 ? 32767 : q);
        }
        const ptrdiff_t end = starts[i] + counts[i];
        if (end > checked) {
            alpha &= alpha_and(row, checked, end);
            checked = end;
        }
    }
    return alpha == 255;
}

int wi_resample_horizontal_premultiplied16_packed2(
    int level, const uint8_t *row0, const uint8_t *row1, ptrdiff_t row_width, ptrdiff_t outputs, const ptrdiff_t *starts,
    const ptrdiff_t *counts, const int32_t *plan, const int16_t *weights, ptrdiff_t block_stride, int precision,
    int16_t *scratch, int16_t *out0, int16_t *out1, const uint8_t *next) {
    if (outputs <= 0) return 1;
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 4) {
        const float bias = (float)((int64_t)32768 << precision);
        const float scale = (float)(1.0 / (255.0 * (double)((int64_t)1 << precision)));
        return horizontal2_premultiplied_vnni(
            row0, row1, row_width, outputs, plan, weights, block_stride, bias, scale, scratch, out0, out1, next);
    }
#endif
    const int opaque0 = wi_resample_horizontal_premultiplied16_packed(
        level, row0, row_width, outputs, starts, counts, plan, weights, block_stride, precision, scratch, out0, row1);
    const int opaque1 = wi_resample_horizontal_premultiplied16_packed(
        level, row1, row_width, outputs, starts, counts, plan, weights, block_stride, precision, scratch, out1, next);
    return opaque0 && opaque1;
}

void wi_resample_vertical_premultiplied(
    int level, const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    const float scale = (float)(1.0 / (double)((int64_t)1 << shift));
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 4 && pair_count <= 64) {
        vertical_premultiplied_vnni(rows, weights, pair_count, width, scale, out);
        return;
    }
    if ((level == 1 || level >= 3) && pair_count <= 64) {
        vertical_premultiplied_avx2(rows, weights, pair_count, width, scale, out);
        return;
    }
#endif
    vertical_premultiplied_portable(rows, weights, pair_count, width, scale, out);
}

void wi_resample_vertical(
    int level, const int16_t *const *rows, const int16_t *weights, ptrdiff_t pair_count, ptrdiff_t width, int shift,
    uint8_t *out) {
    if (level > wi_resample_kernels_level()) level = 0;
#if WI_X86
    if (level == 4 && pair_count <= 64) {
        vertical_vnni(rows, weights, pair_count, width, shift, out);
        return;
    }
    if ((level == 1 || level >= 3) && pair_count <= 64) {
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
