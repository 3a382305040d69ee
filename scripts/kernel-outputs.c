// The C kernels' outputs on deterministic inputs, to compare kernel sets and architectures
// (scripts/neon-check.sh, `make neon-check`): the resampler's (CResampleKernels) and the
// metric's (CMetricKernels) sources are linked as they are, and every entry point the Swift side
// calls is run the way it calls them (WideKernels, PremultipliedKernel, the row-pair passes,
// ScaleMaps) on Lanczos3 tables of several sizes, crops and shrink factors, and on random tables
// (odd starts, windows at the row's end, 1-pixel rows), over opaque, transparent and partly
// transparent RGBA8 rows (RGB images reach the kernels as opaque RGBA8; the kernels have no grey
// form). Source rows, filtered rows and outputs each end at a guard page, so a read or write past
// one stops the run.
//
//   kernel-outputs levels                                   the widest sets here: "RESAMPLE METRIC"
//   kernel-outputs run RESAMPLE_LEVEL METRIC_LEVEL FILE     every case at those kernel sets
//   kernel-outputs compare EXPECTED ACTUAL [resample-only]  record by record
//
// `run` refuses a level this CPU lacks (the kernels would quietly run portable C instead).
// `compare` wants every value identical, floats included (`resample-only` leaves the metric's
// records out). The inputs are made with integer arithmetic and IEEE basic operations only (no
// libm, no contraction), so every architecture and compiler feeds the kernels the same values.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#include "metric_kernels.h"
#include "resample_kernels.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// MARK: Inputs

static uint64_t rng_state;
static void seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ull + 1; }
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
static uint32_t below(uint32_t n) { return rnd() % n; }

/// `bytes` bytes ending exactly at an inaccessible page (and zeroed), so that reading or
/// writing past the end faults.
static void *guarded(size_t bytes) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = (bytes + page - 1) / page * page;
    uint8_t *base = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    if (mprotect(base + span, page, PROT_NONE) != 0) {
        perror("mprotect");
        exit(2);
    }
    return base + span - bytes;
}

static void release(void *p, size_t bytes) {
    if (!p) return;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = (bytes + page - 1) / page * page;
    munmap((uint8_t *)p + bytes - span, span + page);
}

/// sin(πx)/(πx) by a polynomial in IEEE basic operations (no libm, so the same bits everywhere;
/// its accuracy only shapes the test kernel).
static double sinc(double x) {
    if (x == 0) return 1;
    const double pi = 3.14159265358979323846;
    double t = x < 0 ? -x : x;
    const double whole = (double)(int64_t)t;
    double f = t - whole;  // sin(π t) = ±sin(π f)
    const double sign = ((int64_t)whole & 1) ? -1.0 : 1.0;
    if (f > 0.5) f = 1.0 - f;
    const double a = pi * f, a2 = a * a;
    const double s = a * (1 - a2 / 6 * (1 - a2 / 20 * (1 - a2 / 42 * (1 - a2 / 72 * (1 - a2 / 110)))));
    return sign * s / (pi * t);
}

static double lanczos3(double x) { return x > -3 && x < 3 ? sinc(x) * sinc(x / 3) : 0; }

/// A resampling table: output `i` reads `counts[i]` inputs from `starts[i]` with weights
/// `w[i * stride + k]` (adding up to 1).
typedef struct {
    ptrdiff_t in, out, stride, first, end;
    ptrdiff_t *starts, *counts;
    float *w;
} table_t;

static void table_alloc(table_t *t, ptrdiff_t in, ptrdiff_t out, ptrdiff_t stride) {
    t->in = in;
    t->out = out;
    t->stride = stride;
    t->starts = calloc((size_t)out, sizeof *t->starts);
    t->counts = calloc((size_t)out, sizeof *t->counts);
    t->w = calloc((size_t)(out * stride), sizeof *t->w);
}

static void table_free(table_t *t) {
    free(t->starts);
    free(t->counts);
    free(t->w);
}

static void table_span(table_t *t) {
    t->first = t->starts[0];
    t->end = 0;
    for (ptrdiff_t i = 0; i < t->out; i++) {
        if (t->starts[i] < t->first) t->first = t->starts[i];
        if (t->starts[i] + t->counts[i] > t->end) t->end = t->starts[i] + t->counts[i];
    }
}

/// Lanczos3 from `in` inputs (the span `start`, `start + length`) to `out` outputs, as Pillow
/// and the Swift `KernelTable` lay it out.
static void table_lanczos(table_t *t, ptrdiff_t in, ptrdiff_t out, double start, double length) {
    const double scale = length / (double)out, fscale = scale > 1 ? scale : 1, support = 3 * fscale;
    const ptrdiff_t stride = (ptrdiff_t)(2 * support) + 3;
    table_alloc(t, in, out, stride);
    for (ptrdiff_t i = 0; i < out; i++) {
        const double center = start + ((double)i + 0.5) * scale;
        double lo = center - support + 0.5, hi = center + support + 0.5;
        ptrdiff_t from = lo < 0 ? 0 : (ptrdiff_t)lo, to = hi > (double)in ? in : (ptrdiff_t)hi;
        if (to <= from) to = from + 1 <= in ? from + 1 : in, from = to - 1;
        double sum = 0, *w = calloc((size_t)stride, sizeof *w);
        for (ptrdiff_t x = from; x < to; x++) sum += w[x - from] = lanczos3(((double)x - center + 0.5) / fscale);
        if (sum == 0) w[0] = sum = 1;
        t->starts[i] = from;
        t->counts[i] = to - from;
        for (ptrdiff_t x = from; x < to; x++) t->w[i * stride + x - from] = (float)(w[x - from] / sum);
        free(w);
    }
    table_span(t);
}

/// Random windows over `in` inputs (odd starts, windows reaching the row's end, one-tap windows)
/// with random weights, some negative, adding up to 1.
static void table_random(table_t *t, ptrdiff_t in, ptrdiff_t out, ptrdiff_t longest) {
    table_alloc(t, in, out, longest);
    for (ptrdiff_t i = 0; i < out; i++) {
        ptrdiff_t count = 1 + (ptrdiff_t)below((uint32_t)longest);
        if (count > in) count = in;
        ptrdiff_t start = out > 1 ? (in - count) * i / (out - 1) : 0;
        start += (ptrdiff_t)below(5) - 2;
        if (i % 7 == 3) start = in - count;  // at the row's end
        if (start < 0) start = 0;
        if (start + count > in) start = in - count;
        t->starts[i] = start;
        t->counts[i] = count;
        float sum = 0;
        for (ptrdiff_t k = 0; k < count; k++) sum += t->w[i * longest + k] = (float)((int)below(1400) - 250) / 1000.0f;
        if (sum < 0.25f) {
            t->w[i * longest] += 1.0f - sum;
            sum = 1.0f;
        }
        for (ptrdiff_t k = 0; k < count; k++) t->w[i * longest + k] /= sum;
    }
    table_span(t);
}

/// The weights' fractional bits as `KernelTable.fixedPointPrecision(limit:)` finds them, or -1.
static int precision_of(const table_t *t, int limit) {
    float largest = 0;
    for (ptrdiff_t i = 0; i < t->out * t->stride; i++) {
        const float m = t->w[i] < 0 ? -t->w[i] : t->w[i];
        if (m > largest) largest = m;
    }
    int p = 0;
    while (p < limit) {
        const float v = largest * (float)(1 << (p + 1)) + 0.5f;
        if ((int64_t)v > 32767) break;
        p++;
    }
    return p >= 12 ? p : -1;
}

/// Output `i`'s weights in units of `1 / one` (`KernelTable.quantise`): rounded half away from
/// zero, the residue on the largest. Returns the sum of their magnitudes, or -1 when one does
/// not fit `int16`.
static int64_t quantise(const table_t *t, ptrdiff_t i, int64_t one, int32_t *q) {
    int64_t sum = 0;
    ptrdiff_t largest = 0;
    for (ptrdiff_t k = 0; k < t->counts[i]; k++) {
        const float v = t->w[i * t->stride + k] * (float)one;
        q[k] = (int32_t)(v < 0 ? v - 0.5f : v + 0.5f);
        sum += q[k];
        if (abs(q[k]) > abs(q[largest])) largest = k;
    }
    q[largest] += (int32_t)(one - sum);
    q[t->counts[i]] = 0;
    int64_t magnitude = 0;
    for (ptrdiff_t k = 0; k < t->counts[i]; k++) {
        if (q[k] > 32767 || q[k] < -32768) return -1;
        magnitude += q[k] < 0 ? -q[k] : q[k];
    }
    return magnitude;
}

/// The horizontal weights in every layout the kernels read (see resample_kernels.h).
typedef struct {
    int precision;
    int64_t widest;
    int16_t *spread, *packed;
    ptrdiff_t spread_stride, packed_stride;
    int32_t *plan;
} taps_t;

static void taps_free(taps_t *s) {
    free(s->spread);
    free(s->packed);
    free(s->plan);
    memset(s, 0, sizeof *s);
}

/// `limit`: the precision's limit; `bound`: the largest sum of weight magnitudes allowed (the
/// Swift side's: `Int32.max / 255` for the opaque pass, 65535 for the premultiplied one).
static int taps_make(const table_t *t, int limit, int64_t bound, taps_t *s) {
    memset(s, 0, sizeof *s);
    s->precision = precision_of(t, limit);
    if (s->precision < 0) return 0;
    s->spread_stride = (t->stride + 1 + 7) / 8;
    s->packed_stride = (t->stride + 7 + 7) / 8;
    s->spread = calloc((size_t)(t->out * s->spread_stride * 32), sizeof(int16_t));
    s->packed = calloc((size_t)(t->out * s->packed_stride * 8), sizeof(int16_t));
    int32_t *q = calloc((size_t)t->stride + 1, sizeof *q);
    for (ptrdiff_t i = 0; i < t->out; i++) {
        const int64_t magnitude = quantise(t, i, (int64_t)1 << s->precision, q);
        if (magnitude < 0 || magnitude > bound) {
            free(q);
            taps_free(s);
            return 0;
        }
        if (magnitude > s->widest) s->widest = magnitude;
        const ptrdiff_t odd = t->starts[i] & 1;
        for (ptrdiff_t k = 0; k < t->counts[i]; k++) {
            const ptrdiff_t j = k + odd, pos = j % 8;
            const ptrdiff_t at = (i * s->spread_stride + j / 8) * 32 + pos / 2 * 8 + pos % 2;
            s->spread[at] = s->spread[at + 2] = s->spread[at + 4] = s->spread[at + 6] = (int16_t)q[k];
            s->packed[i * s->packed_stride * 8 + (t->starts[i] & 7) + k] = (int16_t)q[k];
        }
    }
    free(q);
    s->plan = calloc((size_t)wi_resample_packed_plan_count(t->out), sizeof(int32_t));
    wi_resample_packed_plan(t->out, t->starts, t->counts, s->plan);
    return 1;
}


/// The vertical weights (`OpaqueRows`): per output `pair_stride` steps of eight `int16`, the
/// pair's two weights first.
typedef struct {
    int precision;
    ptrdiff_t pair_stride;
    int16_t *w;
    int32_t *q;  // per output, `stride + 1` quantised weights
} vweights_t;

static void vweights_free(vweights_t *v);

static int vweights_make(const table_t *t, vweights_t *v) {
    v->precision = precision_of(t, 15);
    if (v->precision < 0) return 0;
    v->pair_stride = (t->stride + 1) / 2;
    v->w = calloc((size_t)(t->out * v->pair_stride * 8), sizeof(int16_t));
    v->q = calloc((size_t)(t->out * (t->stride + 1)), sizeof(int32_t));
    for (ptrdiff_t i = 0; i < t->out; i++) {
        int32_t *q = v->q + i * (t->stride + 1);
        const int64_t magnitude = quantise(t, i, (int64_t)1 << v->precision, q);
        if (magnitude < 0 || magnitude > 65535) {
            vweights_free(v);
            return 0;
        }
        for (ptrdiff_t p = 0; p < (t->counts[i] + 1) / 2; p++)
            for (int r = 0; r < 4; r++) {
                v->w[(i * v->pair_stride + p) * 8 + 2 * r] = (int16_t)q[2 * p];
                v->w[(i * v->pair_stride + p) * 8 + 2 * r + 1] = (int16_t)q[2 * p + 1];
            }
    }
    return 1;
}

static void vweights_free(vweights_t *v) {
    free(v->w);
    free(v->q);
}

enum alpha_mode { OPAQUE, MIXED, SPECKLED, LAST_PIXEL, FIRST_PIXEL, CLEAR, ALPHA_MODES };
static const char *const alpha_names[ALPHA_MODES] = {"opaque", "mixed", "speckled", "last-pixel", "first-pixel", "clear"};

/// One RGBA8 source row of `width` pixels at a guard page.
static uint8_t *source_row(ptrdiff_t width, int mode, ptrdiff_t y) {
    uint8_t *row = guarded((size_t)width * 4);
    for (ptrdiff_t x = 0; x < width; x++) {
        uint8_t *p = row + x * 4;
        // Smooth ramps with noise, and hard edges, so that sums overshoot both ways.
        const uint32_t edge = ((x / 5 + y / 3) & 1) ? 230 : 20;
        for (int c = 0; c < 3; c++) p[c] = (uint8_t)((edge + (uint32_t)(x * (c + 1) + y * 3) + below(40)) & 255);
        if (x % 11 == 0) p[0] = p[1] = p[2] = 255;
        if (x % 13 == 0) p[0] = p[1] = p[2] = 0;
        uint8_t a = 255;
        switch (mode) {
        case MIXED: a = (uint8_t)below(256); break;
        case SPECKLED: a = below(97) == 0 ? (uint8_t)below(255) : 255; break;
        case LAST_PIXEL: a = x == width - 1 && (y & 1) ? 254 : 255; break;
        case FIRST_PIXEL: a = x == 0 && (y & 1) ? 0 : 255; break;
        case CLEAR: a = 0; break;
        default: break;
        }
        p[3] = a;
    }
    return row;
}

// MARK: Records

enum kind { K_U8 = 1, K_I16 = 2, K_I32 = 3, K_F32 = 4, K_F64 = 5 };
static const size_t kind_size[6] = {0, 1, 2, 4, 4, 8};

static FILE *records;
static uint64_t record_count;

static void record(int kind, const void *data, ptrdiff_t count, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void record(int kind, const void *data, ptrdiff_t count, const char *fmt, ...) {
    char name[200];
    va_list args;
    va_start(args, fmt);
    vsnprintf(name, sizeof name, fmt, args);
    va_end(args);
    const uint32_t length = (uint32_t)strlen(name);
    const uint8_t k = (uint8_t)kind;
    const uint64_t n = (uint64_t)count;
    fwrite(&length, 4, 1, records);
    fwrite(name, 1, length, records);
    fwrite(&k, 1, 1, records);
    fwrite(&n, 8, 1, records);
    fwrite(data, kind_size[kind], (size_t)count, records);
    record_count++;
}

static void record_flag(int flag, const char *name, const char *what, ptrdiff_t row) {
    const int32_t v = flag;
    record(K_I32, &v, 1, "%s/row%td/%s-opaque", name, row, what);
}

// MARK: Resampler cases

static int rlevel;
/// How many images took each group of passes (printed, to show what a run covered).
static long ran_opaque, ran_pairs, ran_vertical, ran_premultiplied, ran_vertical_premultiplied, ran_opacity;

/// The whole Swift pipeline of one image on the kernels: the opaque horizontal passes (spread,
/// packed, two rows, four rows), the premultiplied ones (float, int16, packed, two rows), then
/// the vertical passes over what they made (opaque rows, pair rows, premultiplied rows).
static void resample_case(const char *name, const table_t *tx, const table_t *ty, int mode, ptrdiff_t height) {
    const ptrdiff_t sw = tx->in, dw = tx->out;
    taps_t h, hp;
    const int fixed = taps_make(tx, 24, INT32_MAX / 255, &h);
    const int premultiplied = taps_make(tx, 15, 65535, &hp);
    uint8_t **rows = calloc((size_t)height, sizeof *rows);
    for (ptrdiff_t y = 0; y < height; y++) rows[y] = source_row(sw, mode, y);
    const size_t scratch_bytes = (size_t)(4 * sw + 64) * 4 * sizeof(int16_t);
    int16_t *scratch = guarded(scratch_bytes);
    const size_t out_bytes = (size_t)dw * 4 * sizeof(int16_t), float_bytes = (size_t)dw * 4 * sizeof(float);
    int16_t **opaque_rows = calloc((size_t)height + 1, sizeof *opaque_rows);
    int16_t **premul_rows = calloc((size_t)height + 1, sizeof *premul_rows);
    int *row_opaque = calloc((size_t)height, sizeof *row_opaque);
    for (ptrdiff_t y = 0; y <= height; y++) {
        opaque_rows[y] = guarded(out_bytes);
        premul_rows[y] = guarded(out_bytes);
    }
    if (fixed) {
        ran_opaque++;
        const int shift = h.precision - 7;
        const int32_t offset = 128 << 7;
        int16_t *a = guarded(out_bytes), *b = guarded(out_bytes);
        for (ptrdiff_t y = 0; y < height; y++) {
            const uint8_t *next = y + 1 < height ? rows[y + 1] : NULL;
            // As WideKernels.horizontal calls it at levels 1 to 3 (and 2: NEON).
            const int op = wi_resample_horizontal(
                rlevel, rows[y], sw, dw, tx->starts, tx->counts, h.spread, h.spread_stride, shift, offset, scratch, opaque_rows[y]);
            row_opaque[y] = op;
            record_flag(op, name, "horizontal", y);
            // Values only where the row is opaque (elsewhere they are of no use), an empty record
            // otherwise, so that every run writes the same records.
            record(K_I16, opaque_rows[y], op ? dw * 4 : 0, "%s/row%td/horizontal", name, y);
            // As it calls it at level 4 (the packed weights and plan).
            const int opp = wi_resample_horizontal_packed(
                rlevel, rows[y], sw, dw, tx->starts, tx->counts, h.plan, h.packed, h.packed_stride, shift, offset, scratch, a, next);
            record_flag(opp, name, "packed", y);
            record(K_I16, a, opp ? dw * 4 : 0, "%s/row%td/packed", name, y);
            if (y + 1 < height) {
                const int op2 = wi_resample_horizontal_packed2(
                    rlevel, rows[y], rows[y + 1], sw, dw, tx->starts, tx->counts, h.plan, h.packed, h.packed_stride, shift,
                    offset, scratch, a, b, y + 2 < height ? rows[y + 2] : NULL);
                record_flag(op2, name, "packed2", y);
                record(K_I16, a, op2 ? dw * 4 : 0, "%s/row%td/packed2-0", name, y);
                record(K_I16, b, op2 ? dw * 4 : 0, "%s/row%td/packed2-1", name, y);
            }
        }
        release(a, out_bytes);
        release(b, out_bytes);
        // Four rows at a time into pair rows (the row-pair passes), and their vertical pass: only
        // where the filtered values fit `int16`, as the Swift side calls them (the AVX-512 VNNI
        // set saturates them, the others keep the low 16 bits).
        const int fits = h.widest <= (int64_t)2 << h.precision;
        ran_pairs += fits;
        const ptrdiff_t pair_rows = (height + 1) / 2 + 2;
        const size_t pair_bytes = (size_t)dw * 6 * sizeof(int16_t);
        int16_t **pairs = calloc((size_t)pair_rows, sizeof *pairs);
        for (ptrdiff_t p = 0; p < pair_rows; p++) pairs[p] = guarded(pair_bytes);
        const size_t rows4_bytes = (size_t)wi_resample_rows4_scratch_count(h.plan) * sizeof(int16_t);
        int16_t *rows4_scratch = guarded(rows4_bytes);
        for (ptrdiff_t y = 0; fits && y < height; y += 4) {
            const uint8_t *four[4], *next[4];
            for (int r = 0; r < 4; r++) {
                four[r] = rows[y + r < height ? y + r : height - 1];
                next[r] = rows[y + 4 + r < height ? y + 4 + r : height - 1];
            }
            const int mask = wi_resample_horizontal_rows4(
                rlevel, four, sw, dw, tx->starts, tx->counts, h.plan, h.packed, h.packed_stride, shift, offset, rows4_scratch,
                pairs[y / 2], pairs[y / 2 + 1], y + 4 < height ? next : NULL);
            record(K_I32, &mask, 1, "%s/rows4-%td/mask", name, y);
            record(K_I16, pairs[y / 2], dw * 6, "%s/rows4-%td/pairs0", name, y);
            record(K_I16, pairs[y / 2 + 1], dw * 6, "%s/rows4-%td/pairs1", name, y);
        }
        release(rows4_scratch, rows4_bytes);
        vweights_t v;
        if (ty && fits && vweights_make(ty, &v)) {
            ran_vertical++;
            const int vshift = v.precision + 7;
            const size_t line_bytes = (size_t)dw * 4;
            uint8_t *line = guarded(line_bytes), *line2 = guarded(line_bytes);
            const int16_t **window = calloc((size_t)ty->stride + 2, sizeof *window);
            const int16_t **pair_window = calloc((size_t)ty->stride + 4, sizeof *pair_window);
            int32_t *pw0 = calloc((size_t)ty->stride + 4, sizeof *pw0), *pw1 = calloc((size_t)ty->stride + 4, sizeof *pw1);
            for (ptrdiff_t y = 0; y < ty->out; y++) {
                const ptrdiff_t start = ty->starts[y], count = ty->counts[y];
                int all = 1;
                for (ptrdiff_t k = 0; k < count; k++) all &= row_opaque[start + k];
                // rows[count] readable, under a zero weight (any row).
                for (ptrdiff_t k = 0; k <= count; k++) window[k] = opaque_rows[k < count ? start + k : height];
                if (all) wi_resample_vertical(rlevel, window, v.w + y * v.pair_stride * 8, (count + 1) / 2, dw, vshift, line);
                record(K_U8, line, all ? dw * 4 : 0, "%s/out%td/vertical", name, y);
                // The pair rows of this output's window (and the next output's, for two at once).
                const ptrdiff_t y1 = y + 1 < ty->out ? y + 1 : y;
                ptrdiff_t lo = start, hi = start + count;
                if (ty->starts[y1] < lo) lo = ty->starts[y1];
                if (ty->starts[y1] + ty->counts[y1] > hi) hi = ty->starts[y1] + ty->counts[y1];
                const ptrdiff_t first = lo / 2, pair_count = (hi - 1) / 2 - first + 1;
                for (ptrdiff_t p = 0; p < pair_count; p++) {
                    pair_window[p] = pairs[first + p];
                    int16_t w[2][2];
                    for (int r = 0; r < 2; r++) {
                        const ptrdiff_t row = 2 * (first + p) + r;
                        w[0][r] = (int16_t)(row >= start && row < start + count ? v.q[y * (ty->stride + 1) + row - start] : 0);
                        w[1][r] = (int16_t)(row >= ty->starts[y1] && row < ty->starts[y1] + ty->counts[y1]
                                                ? v.q[y1 * (ty->stride + 1) + row - ty->starts[y1]]
                                                : 0);
                    }
                    pw0[p] = (int32_t)((uint32_t)(uint16_t)w[0][0] | (uint32_t)(uint16_t)w[0][1] << 16);
                    pw1[p] = (int32_t)((uint32_t)(uint16_t)w[1][0] | (uint32_t)(uint16_t)w[1][1] << 16);
                }
                wi_resample_vertical_pairs(rlevel, pair_window, pw0, pair_count, dw, vshift, line);
                record(K_U8, line, dw * 4, "%s/out%td/vertical-pairs", name, y);
                wi_resample_vertical_pairs2(rlevel, pair_window, pw0, pw1, pair_count, dw, vshift, line, line2);
                record(K_U8, line, dw * 4, "%s/out%td/vertical-pairs2-0", name, y);
                record(K_U8, line2, dw * 4, "%s/out%td/vertical-pairs2-1", name, y);
            }
            free(window);
            free(pair_window);
            free(pw0);
            free(pw1);
            release(line, line_bytes);
            release(line2, line_bytes);
            vweights_free(&v);
        }
        for (ptrdiff_t p = 0; p < pair_rows; p++) release(pairs[p], pair_bytes);
        free(pairs);
    }
    if (premultiplied) {
        ran_premultiplied++;
        const size_t pair_bytes = (size_t)(4 * sw + 64) * 4 * sizeof(int16_t);
        int16_t *pairs = guarded(pair_bytes);  // zeroed: entries past the span are read under zero weights
        float *f = guarded(float_bytes);
        int16_t *a = guarded(out_bytes), *b = guarded(out_bytes);
        for (ptrdiff_t y = 0; y < height; y++) {
            // As PremultipliedKernel.filter and filter16 call them (the span from the even start).
            const int op = wi_resample_horizontal_premultiplied(
                rlevel, rows[y], sw, tx->first & ~(ptrdiff_t)1, tx->end, dw, tx->starts, tx->counts, hp.spread, hp.spread_stride,
                hp.precision, pairs, f);
            record_flag(op, name, "premultiplied", y);
            record(K_F32, f, dw * 4, "%s/row%td/premultiplied", name, y);
            const int op16 = wi_resample_horizontal_premultiplied16(
                rlevel, rows[y], sw, tx->first & ~(ptrdiff_t)1, tx->end, dw, tx->starts, tx->counts, hp.spread, hp.spread_stride,
                hp.precision, pairs, premul_rows[y]);
            record_flag(op16, name, "premultiplied16", y);
            record(K_I16, premul_rows[y], dw * 4, "%s/row%td/premultiplied16", name, y);
            const int opp = wi_resample_horizontal_premultiplied16_packed(
                rlevel, rows[y], sw, dw, tx->starts, tx->counts, hp.plan, hp.packed, hp.packed_stride, hp.precision, scratch, a,
                y + 1 < height ? rows[y + 1] : NULL);
            record_flag(opp, name, "premultiplied16-packed", y);
            record(K_I16, a, dw * 4, "%s/row%td/premultiplied16-packed", name, y);
            if (y + 1 < height) {
                const int op2 = wi_resample_horizontal_premultiplied16_packed2(
                    rlevel, rows[y], rows[y + 1], sw, dw, tx->starts, tx->counts, hp.plan, hp.packed, hp.packed_stride,
                    hp.precision, scratch, a, b, NULL);
                record_flag(op2, name, "premultiplied16-packed2", y);
                record(K_I16, a, dw * 4, "%s/row%td/premultiplied16-packed2-0", name, y);
                record(K_I16, b, dw * 4, "%s/row%td/premultiplied16-packed2-1", name, y);
            }
        }
        release(pairs, pair_bytes);
        release(f, float_bytes);
        release(a, out_bytes);
        release(b, out_bytes);
        vweights_t v;
        if (ty && hp.widest <= (int64_t)2 << hp.precision && vweights_make(ty, &v)) {
            ran_vertical_premultiplied++;
            const size_t line_bytes = (size_t)dw * 4;
            uint8_t *line = guarded(line_bytes);
            const int16_t **window = calloc((size_t)ty->stride + 2, sizeof *window);
            for (ptrdiff_t y = 0; y < ty->out; y++) {
                const ptrdiff_t start = ty->starts[y], count = ty->counts[y];
                for (ptrdiff_t k = 0; k <= count; k++) window[k] = premul_rows[k < count ? start + k : height];
                wi_resample_vertical_premultiplied(
                    rlevel, window, v.w + y * v.pair_stride * 8, (count + 1) / 2, dw, v.precision + 7, line);
                record(K_U8, line, dw * 4, "%s/out%td/vertical-premultiplied", name, y);
            }
            free(window);
            release(line, line_bytes);
            vweights_free(&v);
        }
    }
    for (ptrdiff_t y = 0; y <= height; y++) {
        release(opaque_rows[y], out_bytes);
        release(premul_rows[y], out_bytes);
    }
    for (ptrdiff_t y = 0; y < height; y++) release(rows[y], (size_t)sw * 4);
    free(rows);
    free(opaque_rows);
    free(premul_rows);
    free(row_opaque);
    release(scratch, scratch_bytes);
    if (fixed) taps_free(&h);
    if (premultiplied) taps_free(&hp);
}

/// The vertical passes alone on random filtered rows: every width from 1 (the pixel tails) and
/// window heights past the 64 pairs the wide kernels take (then portable C).
static void vertical_case(ptrdiff_t index, ptrdiff_t width, ptrdiff_t pair_count, int shift) {
    const size_t bytes = (size_t)width * 4 * sizeof(int16_t);
    int16_t **rows = calloc((size_t)pair_count * 2, sizeof *rows);
    int16_t *w = calloc((size_t)pair_count * 8, sizeof *w);
    for (ptrdiff_t t = 0; t < 2 * pair_count; t++) {
        rows[t] = guarded(bytes);
        // Filtered opaque values are (v − 128) · 128 for v in −255…510; premultiplied ones
        // v · 128 − 16384 for v in 0…255. Both ranges, and the int16 extremes now and then.
        for (ptrdiff_t x = 0; x < width * 4; x++)
            rows[t][x] = below(50) == 0 ? (below(2) ? 32767 : -32768) : (int16_t)((int32_t)below(49152) - 16384);
    }
    // Weights of about 2^shift / 64 each, and their magnitudes within the kernels' bound
    // (32768 · Σ|w| < 2³¹).
    int32_t limit = 1 << (shift - 6);
    if (limit > 65000 / (2 * (int32_t)pair_count)) limit = 65000 / (2 * (int32_t)pair_count);
    for (ptrdiff_t t = 0; t < 2 * pair_count; t++)
        w[8 * (t / 2) + t % 2] = (int16_t)((int32_t)below((uint32_t)limit) - limit / 4);
    uint8_t *out = guarded((size_t)width * 4);
    wi_resample_vertical(rlevel, (const int16_t *const *)rows, w, pair_count, width, shift, out);
    record(K_U8, out, width * 4, "vertical%td/w%td/p%td", index, width, pair_count);
    wi_resample_vertical_premultiplied(rlevel, (const int16_t *const *)rows, w, pair_count, width, shift, out);
    record(K_U8, out, width * 4, "vertical-premultiplied%td/w%td/p%td", index, width, pair_count);
    release(out, (size_t)width * 4);
    for (ptrdiff_t t = 0; t < 2 * pair_count; t++) release(rows[t], bytes);
    free(rows);
    free(w);
}

/// The opacity check of every horizontal pass, one pixel at a time: for each position of the
/// row, the row opaque but for that pixel (alpha 254), so that a pixel the check skips or one
/// it reads outside the windows' span shows.
static void opacity_case(const char *name, const table_t *tx) {
    const ptrdiff_t sw = tx->in, dw = tx->out;
    taps_t h, hp;
    if (!taps_make(tx, 24, INT32_MAX / 255, &h)) return;
    if (!taps_make(tx, 15, 65535, &hp)) {
        taps_free(&h);
        return;
    }
    const size_t scratch_bytes = (size_t)(4 * sw + 64) * 4 * sizeof(int16_t), out_bytes = (size_t)dw * 4 * sizeof(int16_t);
    int16_t *scratch = guarded(scratch_bytes), *a = guarded(out_bytes), *b = guarded(out_bytes);
    int16_t *pairs = guarded(scratch_bytes);
    int16_t *p0 = guarded((size_t)dw * 6 * sizeof(int16_t)), *p1 = guarded((size_t)dw * 6 * sizeof(int16_t));
    int16_t *rows4_scratch = guarded((size_t)wi_resample_rows4_scratch_count(h.plan) * sizeof(int16_t));
    uint8_t *row = guarded((size_t)sw * 4), *opaque = guarded((size_t)sw * 4);
    memset(opaque, 255, (size_t)sw * 4);
    int32_t *flags = calloc((size_t)sw * 8, sizeof *flags);
    for (ptrdiff_t x = 0; x < sw; x++) {
        memset(row, 200, (size_t)sw * 4);
        for (ptrdiff_t i = 0; i < sw; i++) row[i * 4 + 3] = i == x ? 254 : 255;
        const int shift = h.precision - 7, offset = 128 << 7;
        int32_t *f = flags + x * 8;
        f[0] = wi_resample_horizontal(rlevel, row, sw, dw, tx->starts, tx->counts, h.spread, h.spread_stride, shift, offset, scratch, a);
        f[1] = wi_resample_horizontal_packed(
            rlevel, row, sw, dw, tx->starts, tx->counts, h.plan, h.packed, h.packed_stride, shift, offset, scratch, a, NULL);
        f[2] = wi_resample_horizontal_packed2(
            rlevel, opaque, row, sw, dw, tx->starts, tx->counts, h.plan, h.packed, h.packed_stride, shift, offset, scratch, a, b,
            NULL);
        const uint8_t *four[4] = {opaque, row, opaque, row};
        f[3] = wi_resample_horizontal_rows4(
            rlevel, four, sw, dw, tx->starts, tx->counts, h.plan, h.packed, h.packed_stride, shift, offset, rows4_scratch, p0, p1,
            NULL);
        f[4] = wi_resample_horizontal_premultiplied16(
            rlevel, row, sw, tx->first & ~(ptrdiff_t)1, tx->end, dw, tx->starts, tx->counts, hp.spread, hp.spread_stride,
            hp.precision, pairs, a);
        f[5] = wi_resample_horizontal_premultiplied16_packed(
            rlevel, row, sw, dw, tx->starts, tx->counts, hp.plan, hp.packed, hp.packed_stride, hp.precision, scratch, a, NULL);
        f[6] = wi_resample_horizontal_premultiplied16_packed2(
            rlevel, row, opaque, sw, dw, tx->starts, tx->counts, hp.plan, hp.packed, hp.packed_stride, hp.precision, scratch, a,
            b, NULL);
        f[7] = (int32_t)x;
    }
    record(K_I32, flags, sw * 8, "%s/opacity", name);
    ran_opacity++;
    free(flags);
    release(row, (size_t)sw * 4);
    release(opaque, (size_t)sw * 4);
    release(scratch, scratch_bytes);
    release(pairs, scratch_bytes);
    release(a, out_bytes);
    release(b, out_bytes);
    release(p0, (size_t)dw * 6 * sizeof(int16_t));
    release(p1, (size_t)dw * 6 * sizeof(int16_t));
    release(rows4_scratch, (size_t)wi_resample_rows4_scratch_count(h.plan) * sizeof(int16_t));
    taps_free(&h);
    taps_free(&hp);
}

static void resample_cases(void) {
    // Lanczos3 over whole images and crops: shrinks (to a 1-pixel row and column, and by 100×
    // and more, past 64 vertical pairs), enlargements, sizes around the vector widths.
    static const struct {
        ptrdiff_t sw, sh, dw, dh;
        double x, y, cw, ch;  // crop (0 width: the whole image)
    } images[] = {
        {1, 1, 3, 2, 0, 0, 0, 0},      {2, 3, 1, 1, 0, 0, 0, 0},        {7, 5, 3, 2, 0, 0, 0, 0},
        {8, 8, 5, 5, 0, 0, 0, 0},      {9, 9, 4, 4, 0, 0, 0, 0},        {15, 7, 16, 9, 0, 0, 0, 0},
        {16, 16, 7, 7, 0, 0, 0, 0},    {17, 11, 8, 5, 0, 0, 0, 0},      {33, 17, 16, 9, 0, 0, 0, 0},
        {64, 40, 200, 9, 0, 0, 0, 0},  {100, 31, 37, 13, 0, 0, 0, 0},   {257, 12, 64, 5, 0, 0, 0, 0},
        {300, 40, 113, 15, 0, 0, 0, 0}, {1000, 9, 97, 3, 0, 0, 0, 0},    {2003, 4, 13, 2, 0, 0, 0, 0},
        {9, 900, 5, 7, 0, 0, 0, 0},    {120, 60, 41, 23, 3.3, 5.7, 50.7, 31.1}, {97, 30, 97, 12, 0, 0, 0, 0},
        {31, 31, 1, 1, 0, 0, 0, 0},    {640, 8, 301, 3, 0, 0, 0, 0},
    };
    const ptrdiff_t image_count = (ptrdiff_t)(sizeof images / sizeof images[0]);
    char name[120];
    for (ptrdiff_t n = 0; n < image_count; n++) {
        table_t tx, ty;
        const double cw = images[n].cw > 0 ? images[n].cw : (double)images[n].sw;
        const double ch = images[n].ch > 0 ? images[n].ch : (double)images[n].sh;
        table_lanczos(&tx, images[n].sw, images[n].dw, images[n].x, cw);
        table_lanczos(&ty, images[n].sh, images[n].dh, images[n].y, ch);
        for (int mode = 0; mode < ALPHA_MODES; mode++) {
            seed((uint64_t)(n * 16 + mode));
            snprintf(name, sizeof name, "lanczos%td-%tdx%td-%tdx%td/%s", n, images[n].sw, images[n].sh, images[n].dw,
                     images[n].dh, alpha_names[mode]);
            resample_case(name, &tx, &ty, mode, images[n].sh);
        }
        table_free(&tx);
        table_free(&ty);
    }
    // Random tables: widths 1…300, windows up to 40 taps, every alpha mode.
    for (ptrdiff_t n = 0; n < 240; n++) {
        seed((uint64_t)(1000 + n));
        const ptrdiff_t width = 1 + (ptrdiff_t)below(n < 40 ? 12 : 300);
        const ptrdiff_t outputs = 1 + (ptrdiff_t)below(width < 80 ? (uint32_t)width + 3 : 80);
        const ptrdiff_t longest = 1 + (ptrdiff_t)below(40);
        const ptrdiff_t height = 1 + (ptrdiff_t)below(9);
        table_t tx, ty;
        table_random(&tx, width, outputs, longest);
        table_random(&ty, height, 1 + (ptrdiff_t)below(4), 1 + (ptrdiff_t)below(12));
        const int mode = (int)(n % ALPHA_MODES);
        snprintf(name, sizeof name, "random%td-w%td-o%td-t%td/%s", n, width, outputs, longest, alpha_names[mode]);
        resample_case(name, &tx, &ty, mode, height);
        table_free(&tx);
        table_free(&ty);
    }
    // The opacity checks: crops (a span inside the row), shrinks and random windows.
    for (ptrdiff_t n = 0; n < 60; n++) {
        seed((uint64_t)(3000 + n));
        table_t tx;
        const ptrdiff_t width = 1 + (ptrdiff_t)below(70);
        if (n % 3 == 0) {
            const double from = (double)below((uint32_t)width) / 2;
            table_lanczos(&tx, width, 1 + (ptrdiff_t)below(20), from, ((double)width - from) * 0.6 + 0.5);
        } else if (n % 3 == 1) {
            table_lanczos(&tx, width, 1 + (ptrdiff_t)below((uint32_t)width), 0, (double)width);
        } else {
            table_random(&tx, width, 1 + (ptrdiff_t)below(12), 1 + (ptrdiff_t)below(20));
        }
        snprintf(name, sizeof name, "opacity%td-w%td-o%td", n, width, tx.out);
        opacity_case(name, &tx);
        table_free(&tx);
    }
    for (ptrdiff_t n = 0; n < 200; n++) {
        seed((uint64_t)(5000 + n));
        const ptrdiff_t width = n < 70 ? 1 + n : 1 + (ptrdiff_t)below(200);
        const ptrdiff_t pairs = n % 9 == 0 ? 60 + (ptrdiff_t)below(20) : 1 + (ptrdiff_t)below(20);
        vertical_case(n, width, pairs, 14 + (int)below(8));
    }
}

// MARK: Metric cases

static int mlevel;

static float *floats(ptrdiff_t count, ptrdiff_t margin) {
    float *p = guarded((size_t)(count + 2 * margin) * sizeof(float));
    return p + margin;
}

static void floats_free(float *p, ptrdiff_t count, ptrdiff_t margin) {
    release(p - margin, (size_t)(count + 2 * margin) * sizeof(float));
}

/// Uniform in 0…1 (a multiple of 2⁻²⁴), and exactly 0 or 1 now and then.
static float unit(void) {
    const uint32_t r = below(40);
    if (r == 0) return 0;
    if (r == 1) return 1;
    return (float)(rnd() & 0xFFFFFF) / 16777216.0f;
}

static void metric_cases(void) {
    // SSIMULACRA2's 9-tap Gaussian (sigma 1.5) as ScaleMaps passes it.
    static const float taps[5] = {0.26596152f, 0.21296534f, 0.10934005f, 0.03599398f, 0.00759732f};
    static const ptrdiff_t counts[] = {8, 16, 24, 64, 200, 1024};
    for (size_t n = 0; n < sizeof counts / sizeof counts[0]; n++) {
        const ptrdiff_t count = counts[n];
        seed(9000 + n);
        float *r = floats(count, 0), *g = floats(count, 0), *b = floats(count, 0);
        for (ptrdiff_t i = 0; i < count; i++) {
            r[i] = unit();
            g[i] = unit();
            b[i] = unit();
        }
        float *xyb[3];
        for (int c = 0; c < 3; c++) xyb[c] = floats(count, 8);  // 8 zero floats either side
        wi_ssim2_xyb(mlevel, r, g, b, count, xyb[0], xyb[1], xyb[2]);
        for (int c = 0; c < 3; c++) record(K_F32, xyb[c], count, "metric/xyb%td/channel%d", count, c);
        // A distorted row: the reference with noise (in the XYB value range).
        float *dist = floats(count, 8);
        for (ptrdiff_t i = 0; i < count; i++) dist[i] = xyb[1][i] + ((float)below(2001) - 1000.0f) / 20000.0f;
        float *blur[5];
        for (int q = 0; q < 5; q++) blur[q] = floats(count, 0);
        float *scratch = floats(3 * (count + 16), 0);
        wi_ssim2_row_blurs(mlevel, xyb[1], dist, count, taps, scratch, blur);
        for (int q = 0; q < 5; q++) record(K_F32, blur[q], count, "metric/row-blurs%td/q%d", count, q);
        wi_ssim2_row_blurs_distorted(mlevel, xyb[1], dist, count, taps, scratch, blur);
        for (int q = 0; q < 3; q++) record(K_F32, blur[q], count, "metric/row-blurs-distorted%td/q%d", count, q);
        wi_ssim2_row_blurs_reference(mlevel, xyb[1], count, taps, scratch, blur);
        for (int q = 0; q < 2; q++) record(K_F32, blur[q], count, "metric/row-blurs-reference%td/q%d", count, q);
        // Nine rows per quantity for the column passes: blurred-looking random rows, and a
        // row of zeros for the rows outside the image.
        float *plane[5][9];
        float *zeros = floats(count, 0);
        const float *column[45];
        for (int q = 0; q < 5; q++)
            for (int k = 0; k < 9; k++) {
                plane[q][k] = floats(count, 0);
                for (ptrdiff_t i = 0; i < count; i++) plane[q][k][i] = q < 2 ? unit() : unit() * unit();
                column[q * 9 + k] = (n % 2 && (k == 0 || k == 8)) ? zeros : plane[q][k];
            }
        for (int quantities = 1; quantities <= 5; quantities += 4) {
            wi_ssim2_column_blurs(mlevel, column, quantities, count, taps, blur);
            for (int q = 0; q < quantities; q++) record(K_F32, blur[q], count, "metric/column-blurs%td/%d/q%d", count, quantities, q);
        }
        double sums[6] = {0, 0, 0, 0, 0, 0};
        wi_ssim2_map_row(mlevel, xyb[1], dist, column, NULL, NULL, count, taps, sums);
        record(K_F64, sums, 6, "metric/map-row%td", count);
        // Prepared: μ1 and σ11 given, the three distorted quantities in the first 27 pointers.
        double prepared[6] = {0, 0, 0, 0, 0, 0};
        wi_ssim2_map_row(mlevel, xyb[1], dist, column + 9, blur[0], blur[1], count, taps, prepared);
        record(K_F64, prepared, 6, "metric/map-row-prepared%td", count);
        for (int q = 0; q < 5; q++)
            for (int k = 0; k < 9; k++) floats_free(plane[q][k], count, 0);
        floats_free(zeros, count, 0);
        floats_free(scratch, 3 * (count + 16), 0);
        for (int q = 0; q < 5; q++) floats_free(blur[q], count, 0);
        floats_free(dist, count, 8);
        for (int c = 0; c < 3; c++) floats_free(xyb[c], count, 8);
        floats_free(r, count, 0);
        floats_free(g, count, 0);
        floats_free(b, count, 0);
    }
}

// MARK: Compare

typedef struct {
    char name[256];
    int kind;
    uint64_t count;
    void *data;
} rec_t;

static int read_record(FILE *f, rec_t *r) {
    uint32_t length;
    if (fread(&length, 4, 1, f) != 1) return 0;
    uint8_t k;
    if (length >= sizeof r->name || fread(r->name, 1, length, f) != length || fread(&k, 1, 1, f) != 1
        || fread(&r->count, 8, 1, f) != 1 || k < K_U8 || k > K_F64 || r->count > (1u << 28)) {
        fprintf(stderr, "kernel-outputs: malformed record\n");
        exit(2);
    }
    r->name[length] = 0;
    r->kind = k;
    free(r->data);
    r->data = malloc(r->count * kind_size[k] + 1);
    if (fread(r->data, kind_size[k], r->count, f) != r->count) {
        fprintf(stderr, "kernel-outputs: truncated record %s\n", r->name);
        exit(2);
    }
    return 1;
}

/// Units in the last place between two floats (through zero when their signs differ).
static uint64_t ulps(double a, double b, int is_double) {
    if (a == b) return 0;
    if (a != a || b != b) return UINT64_MAX;
    int64_t ia, ib;
    if (is_double) {
        memcpy(&ia, &a, 8);
        memcpy(&ib, &b, 8);
    } else {
        const float fa = (float)a, fb = (float)b;
        int32_t sa, sb;
        memcpy(&sa, &fa, 4);
        memcpy(&sb, &fb, 4);
        ia = sa;
        ib = sb;
    }
    // Sign-magnitude to a monotonic line.
    const int64_t top = is_double ? INT64_MIN : (int64_t)INT32_MIN;
    if (ia < 0) ia = top - ia;
    if (ib < 0) ib = top - ib;
    return ia > ib ? (uint64_t)(ia - ib) : (uint64_t)(ib - ia);
}

static int compare(const char *expected_path, const char *actual_path, int resample_only) {
    FILE *e = fopen(expected_path, "rb"), *a = fopen(actual_path, "rb");
    if (!e || !a) {
        fprintf(stderr, "kernel-outputs: cannot open %s\n", !e ? expected_path : actual_path);
        return 2;
    }
    rec_t re = {0}, ra = {0};
    uint64_t compared = 0, values = 0, differing = 0, skipped = 0;
    for (;;) {
        const int he = read_record(e, &re), ha = read_record(a, &ra);
        if (!he || !ha) {
            if (he != ha) {
                printf("  %s ends early (after %llu records)\n", he ? actual_path : expected_path, (unsigned long long)compared);
                differing++;
            }
            break;
        }
        compared++;
        if (strcmp(re.name, ra.name) != 0 || re.kind != ra.kind) {
            printf("  record %llu: %s against %s: the runs took different paths\n", (unsigned long long)compared, re.name,
                   ra.name);
            differing++;
            break;
        }
        if (re.count != ra.count) {
            // Values where the other run has none (an opacity flag differed first).
            if (++differing <= 12) printf("  %s: %llu values against %llu\n", re.name, (unsigned long long)re.count,
                                          (unsigned long long)ra.count);
            continue;
        }
        if (resample_only && strncmp(re.name, "metric/", 7) == 0) {
            skipped++;
            continue;
        }
        uint64_t shown = 0;
        for (uint64_t i = 0; i < re.count; i++) {
            int64_t ie = 0, ia = 0;
            double fe = 0, fa = 0;
            switch (re.kind) {
            case K_U8: ie = ((uint8_t *)re.data)[i], ia = ((uint8_t *)ra.data)[i]; break;
            case K_I16: ie = ((int16_t *)re.data)[i], ia = ((int16_t *)ra.data)[i]; break;
            case K_I32: ie = ((int32_t *)re.data)[i], ia = ((int32_t *)ra.data)[i]; break;
            case K_F32: fe = ((float *)re.data)[i], fa = ((float *)ra.data)[i]; break;
            default: fe = ((double *)re.data)[i], fa = ((double *)ra.data)[i]; break;
            }
            values++;
            // Floats bit for bit (so two equal NaNs agree, and −0 differs from +0).
            const size_t size = kind_size[re.kind];
            const int same = re.kind == K_F32 || re.kind == K_F64
                ? memcmp((uint8_t *)re.data + i * size, (uint8_t *)ra.data + i * size, size) == 0
                : ie == ia;
            if (!same) {
                differing++;
                if (differing <= 12 && shown++ < 4) {
                    if (re.kind == K_F32 || re.kind == K_F64)
                        printf("  %s[%llu]: expected %.9g, got %.9g (%llu ulps)\n", re.name, (unsigned long long)i, fe, fa,
                               (unsigned long long)ulps(fe, fa, re.kind == K_F64));
                    else
                        printf("  %s[%llu]: expected %lld, got %lld\n", re.name, (unsigned long long)i, (long long)ie,
                               (long long)ia);
                }
            }
        }
    }
    free(re.data);
    free(ra.data);
    fclose(e);
    fclose(a);
    printf("%s: %llu records (%llu of the metric's left out), %llu values, %llu differ\n", actual_path,
           (unsigned long long)compared, (unsigned long long)skipped, (unsigned long long)values, (unsigned long long)differing);
    return differing ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && argc <= 5 && strcmp(argv[1], "compare") == 0)
        return compare(argv[2], argv[3], argc == 5 && strcmp(argv[4], "resample-only") == 0);
    if (argc == 2 && strcmp(argv[1], "levels") == 0) {
        printf("%d %d\n", wi_resample_kernels_level(), wi_ssim2_kernels_level());
        return 0;
    }
    if (argc != 5 || strcmp(argv[1], "run") != 0) {
        fprintf(stderr, "usage: kernel-outputs levels | run RESAMPLE_LEVEL METRIC_LEVEL FILE | compare EXPECTED ACTUAL [resample-only]\n");
        return 2;
    }
    rlevel = atoi(argv[2]);
    mlevel = atoi(argv[3]);
    if (rlevel > wi_resample_kernels_level() || mlevel > wi_ssim2_kernels_level()) {
        fprintf(stderr, "kernel-outputs: this CPU runs resample level %d and metric level %d at most\n",
                wi_resample_kernels_level(), wi_ssim2_kernels_level());
        return 3;
    }
    records = fopen(argv[4], "wb");
    if (!records) {
        perror(argv[4]);
        return 2;
    }
    resample_cases();
    metric_cases();
    if (fclose(records) != 0) {
        perror(argv[4]);
        return 2;
    }
    printf("%s: resample level %d, metric level %d, %llu records; images through the opaque passes %ld (row pairs %ld, "
           "vertical %ld), the premultiplied ones %ld (vertical %ld); opacity sweeps %ld\n",
           argv[4], rlevel, mlevel, (unsigned long long)record_count, ran_opaque, ran_pairs, ran_vertical, ran_premultiplied,
           ran_vertical_premultiplied, ran_opacity);
    return 0;
}
