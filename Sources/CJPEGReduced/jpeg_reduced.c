// A progressive JPEG decoded at 1/8 or 1/4 from what its reduced inverse DCTs read.
//
// Written from ITU-T T.81 (Annex G: progressive DCT, G.1.2 and G.2; Annex F.2.2: Huffman
// decoding; Annex B: syntax) and from the documented behaviour of libjpeg-turbo's reduced
// decodes, whose pixels it reproduces exactly:
//
// - each component is decoded at libjpeg's DCT scaled size: from the minimum (1 at 1/8, 2 at
//   1/4), doubled while that replaces upsampling (4:2:0 chroma: 2 at 1/8, 4 at 1/4);
// - size 1 is its DC alone (dequantised, divided by 8 with rounding, plus 128, clamped as
//   libjpeg's post-IDCT range limit does); size 2 the reduced 2×2 inverse DCT, which reads rows
//   and columns 0, 1, 3, 5 and 7 of the coefficients; size 4 the reduced 4×4 one (all but 4);
// - at minimum scaled size 1 libjpeg turns fancy upsampling off, so a component smaller than the
//   output is replicated; at 1/4 only files that need no upsampling are decoded;
// - then the integer YCbCr→RGB conversion (tables rounded with ONE_HALF), grey replicated, RGB
//   copied, CMYK copied, YCCK converted to CMYK.
//
// Only the AC scans of the components scaled above size 1 are entropy-decoded; the others are
// skipped by marker search. Those AC scans are decoded block by block, all of a component's scans
// in step (each scan keeps its own bit position, end-of-band run and restart count), so no
// coefficient buffer larger than one block exists: the DC of every component is one int16 per
// block.
//
// Anything this decoder does not reproduce exactly is declined (a non-zero result): the caller
// then decodes another way.

#include "jpeg_reduced.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_COMPONENTS = 4,
    /// TurboJPEG's TJFLAG_LIMITSCANS refuses more scans than this.
    MAX_SCANS = 500,
    /// AC scans of one component scaled above size 1 decoded in step (a real script has at most ~14).
    MAX_AC_SCANS = 64,
    /// libjpeg's JPEG_MAX_DIMENSION.
    MAX_DIMENSION = 65500,
    /// libjpeg's D_MAX_BLOCKS_IN_MCU.
    MAX_BLOCKS_IN_MCU = 10,
    LOOKAHEAD = 9,
};

/// Zigzag index → natural (row-major) index.
static const uint8_t zigzag_to_natural[64] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

// ---------------------------------------------------------------------------------------------
// Huffman tables (T.81 Annex C and F.2.2.3)

typedef struct {
    uint8_t counts[17];   // counts[l]: codes of length l (1…16)
    uint8_t symbols[256];
    int defined;
} raw_table;

typedef struct {
    int32_t maxcode[18];  // largest code of length l, -1 if none
    int32_t valoffset[18];
    uint8_t look_length[1 << LOOKAHEAD];  // 0: the code is longer than LOOKAHEAD bits
    uint8_t look_symbol[1 << LOOKAHEAD];
    uint8_t symbols[256];
} decode_table;

/// Builds the decoding table of `raw`; 0 when the table is not a valid code (the checks
/// libjpeg makes before decoding with it: at most 256 codes, no code of all one bits, and
/// DC symbols at most 15).
static int build_table(const raw_table *raw, int is_dc, decode_table *t) {
    if (!raw->defined) return 0;
    int total = 0;
    for (int l = 1; l <= 16; l++) total += raw->counts[l];
    if (total > 256) return 0;
    if (is_dc) {
        for (int i = 0; i < total; i++) if (raw->symbols[i] > 15) return 0;
    }
    memcpy(t->symbols, raw->symbols, 256);
    memset(t->look_length, 0, sizeof t->look_length);
    int32_t code = 0;
    int p = 0;
    for (int l = 1; l <= 16; l++) {
        int n = raw->counts[l];
        if (n == 0) {
            t->maxcode[l] = -1;
            t->valoffset[l] = 0;
        } else {
            t->valoffset[l] = p - code;
            for (int i = 0; i < n; i++, p++, code++) {
                // More codes than l bits can hold (checked before the code indexes the table).
                if (code >= (1 << l)) return 0;
                if (l <= LOOKAHEAD) {
                    int shift = LOOKAHEAD - l;
                    int first = code << shift;
                    for (int j = 0; j < (1 << shift); j++) {
                        t->look_length[first + j] = (uint8_t)l;
                        t->look_symbol[first + j] = raw->symbols[p];
                    }
                }
            }
            t->maxcode[l] = code - 1;
        }
        // The next code must still fit in l bits: no code may be all ones.
        if (n > 0 && code >= (1 << l)) return 0;
        code <<= 1;
    }
    t->maxcode[17] = INT32_MAX;
    return 1;
}

// ---------------------------------------------------------------------------------------------
// Entropy-coded data (T.81 F.2.2.5, B.1.1.5): bytes with FF 00 stuffing, ending at a marker.

typedef struct {
    const uint8_t *data;
    size_t pos;          // next byte to read
    size_t end;          // the FF of the marker that ends the scan
    uint64_t buffer;     // bits, most significant first
    int count;           // bits in buffer
    int padding;         // of those, zero bits added past the data (the low ones)
    int at_marker;       // the reader stopped at a marker
    size_t marker_code;  // index of that marker's code byte (valid when at_marker and < end)
    int failed;          // a code was bad (a read past the data shows as count < padding)
} bit_reader;

static void reader_start(bit_reader *r, const uint8_t *data, size_t start, size_t end) {
    r->data = data;
    r->pos = start;
    r->end = end;
    r->buffer = 0;
    r->count = 0;
    r->padding = 0;
    r->at_marker = 0;
    r->marker_code = end;
    r->failed = 0;
}

/// Reads the next data byte into the buffer, or stops at a marker (then zero bits follow).
static inline void reader_fill(bit_reader *r) {
    // Whole bytes at once while the next eight hold no FF (no stuffing, no marker).
    if (!r->at_marker && r->end - r->pos >= 8 && r->count <= 56) {
        uint64_t word;
        memcpy(&word, r->data + r->pos, 8);
        uint64_t inverted = ~word;  // a zero byte here is an FF byte there
        if (((inverted - 0x0101010101010101ull) & ~inverted & 0x8080808080808080ull) == 0) {
            word = __builtin_bswap64(word);
            int take = (64 - r->count) >> 3;
            uint64_t kept = take == 8 ? word : word & ~(~(uint64_t)0 >> (8 * take));
            r->buffer |= kept >> r->count;
            r->pos += (size_t)take;
            r->count += 8 * take;
            return;
        }
    }
    while (r->count <= 56) {
        uint32_t byte = 0;
        if (!r->at_marker) {
            if (r->pos >= r->end) {
                r->at_marker = 1;
                r->marker_code = r->end;
            } else {
                byte = r->data[r->pos];
                if (byte != 0xFF) {
                    r->pos++;
                } else {
                    // FF, any further FFs, then 00 is one FF data byte; anything else a marker.
                    size_t q = r->pos + 1;
                    while (q < r->end && r->data[q] == 0xFF) q++;
                    if (q < r->end && r->data[q] == 0x00) {
                        r->pos = q + 1;
                    } else {
                        r->at_marker = 1;
                        r->marker_code = q;
                        byte = 0;
                    }
                }
            }
        }
        if (r->at_marker) r->padding += 8;
        r->buffer |= (uint64_t)byte << (56 - r->count);
        r->count += 8;
    }
}

static inline void reader_consume(bit_reader *r, int n) {
    r->buffer <<= n;
    r->count -= n;
}

/// No bad code so far, and no bit read past the data: past a marker only padding is added, to
/// `count` and `padding` alike, so once `count` falls below `padding` it stays below. Checked
/// once per block instead of at every read (a block reads a bounded number of bits).
static inline int reader_ok(const bit_reader *r) { return !r->failed && r->count >= r->padding; }

/// `n` (0…16) bits.
static inline uint32_t reader_bits(bit_reader *r, int n) {
    if (n == 0) return 0;
    if (r->count < n) reader_fill(r);
    uint32_t v = (uint32_t)(r->buffer >> (64 - n));
    reader_consume(r, n);
    return v;
}

/// The next Huffman symbol, or -1 for a bad code.
static inline int reader_decode(bit_reader *r, const decode_table *t) {
    if (r->count < 16) reader_fill(r);
    uint32_t look = (uint32_t)(r->buffer >> (64 - LOOKAHEAD));
    int length = t->look_length[look];
    if (length) {
        reader_consume(r, length);
        return t->look_symbol[look];
    }
    uint32_t bits16 = (uint32_t)(r->buffer >> 48);
    for (int l = LOOKAHEAD + 1; l <= 16; l++) {
        int32_t code = (int32_t)(bits16 >> (16 - l));
        if (code <= t->maxcode[l]) {
            reader_consume(r, l);
            int index = t->valoffset[l] + code;
            if (index < 0 || index > 255) {
                r->failed = 1;
                return -1;
            }
            return t->symbols[index];
        }
    }
    r->failed = 1;
    return -1;
}

/// T.81 F.2.2.1 EXTEND.
static inline int32_t extend(uint32_t v, int s) {
    return v < (1u << (s - 1)) ? (int32_t)v - (int32_t)(1u << s) + 1 : (int32_t)v;
}

/// Whether the data ends where the decoding did: no whole byte left before the next marker (an
/// encoder pads only the last byte). libjpeg warns about the bytes it skips there.
static int reader_at_end(bit_reader *r) {
    reader_fill(r);
    return reader_ok(r) && r->count - r->padding < 8;
}

/// At a restart interval's end: drop the buffered bits and read RSTn, which must be the expected
/// one (libjpeg resynchronises otherwise, with a warning). Bytes before the marker are skipped.
static int reader_restart(bit_reader *r, int expected) {
    size_t code;
    if (r->at_marker) {
        code = r->marker_code;
    } else {
        size_t p = r->pos;
        code = r->end;
        while (p < r->end) {
            if (r->data[p] != 0xFF) { p++; continue; }
            size_t q = p + 1;
            while (q < r->end && r->data[q] == 0xFF) q++;
            if (q < r->end && r->data[q] == 0x00) { p = q + 1; continue; }
            code = q;
            break;
        }
    }
    if (code >= r->end || r->data[code] != 0xD0 + (expected & 7)) return 0;
    reader_start(r, r->data, code + 1, r->end);
    return 1;
}

// ---------------------------------------------------------------------------------------------
// The frame and its scans

typedef struct {
    uint8_t id;
    int h, v;
    int quant_selector;
    int scaled;            // DCT scaled size: 1, 2 or 4
    int width_blocks, height_blocks;  // blocks that carry image data
    int padded_width, padded_height;  // blocks of the MCU grid
    int16_t *dc;           // padded_width × padded_height
    int quant_latched;
    uint16_t quant[64];    // natural order, latched at the component's first scan
    int bits[64];          // per coefficient: -1 never coded, else the Al it was last coded with
    int ac_scan_count;
    uint8_t *plane;        // the component's samples at its scaled size
    int plane_width, plane_height;
} component;

typedef struct {
    bit_reader reader;
    decode_table table;
    int ss, se, ah, al;
    uint32_t eob_run;
    unsigned restart_interval, restarts_to_go;
    int next_restart;
} ac_scan;

typedef struct {
    const uint8_t *data;
    size_t size;
    int accept_prefix;
    int min_scaled;        // libjpeg's minimum DCT scaled size: 1 at 1/8, 2 at 1/4
    size_t memory_limit;
    size_t allocated;

    int width, height;
    int component_count;
    component comps[MAX_COMPONENTS];
    int max_h, max_v;
    int mcus_per_row, mcu_rows;
    int have_frame;

    raw_table dc_tables[4], ac_tables[4];
    int quant_defined[4];
    uint16_t quant_tables[4][64];  // natural order
    unsigned restart_interval;
    int saw_jfif, saw_adobe, adobe_transform;
    int scan_count;
    int reached_eoi;

    ac_scan *ac_scans[MAX_COMPONENTS];  // MAX_AC_SCANS each, for components scaled above 1
    decode_table scratch;
} decoder;

static int checked_mul(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

static void *allocate(decoder *d, size_t count, size_t each, int zeroed) {
    size_t bytes;
    if (!checked_mul(count, each, &bytes) || bytes > d->memory_limit - d->allocated) return NULL;
    if (bytes == 0) bytes = 1;
    void *p = zeroed ? calloc(1, bytes) : malloc(bytes);
    if (p) d->allocated += bytes;
    return p;
}

static void release(decoder *d) {
    for (int c = 0; c < MAX_COMPONENTS; c++) {
        free(d->comps[c].dc);
        free(d->comps[c].plane);
        free(d->ac_scans[c]);
        d->comps[c].dc = NULL;
        d->comps[c].plane = NULL;
        d->ac_scans[c] = NULL;
    }
}

static inline int read16(const uint8_t *p) { return (p[0] << 8) | p[1]; }

static int parse_dht(decoder *d, const uint8_t *body, size_t length) {
    size_t p = 0;
    while (p < length) {
        if (length - p < 17) return WI_JPEG_REDUCED_MALFORMED;
        int table_class = body[p] >> 4, id = body[p] & 0x0F;
        if (table_class > 1 || id > 3) return WI_JPEG_REDUCED_MALFORMED;
        raw_table *t = table_class == 0 ? &d->dc_tables[id] : &d->ac_tables[id];
        size_t total = 0;
        t->counts[0] = 0;
        for (int l = 1; l <= 16; l++) {
            t->counts[l] = body[p + l];
            total += body[p + l];
        }
        if (total > 256 || total > length - p - 17) return WI_JPEG_REDUCED_MALFORMED;
        memset(t->symbols, 0, sizeof t->symbols);
        memcpy(t->symbols, body + p + 17, total);
        t->defined = 1;
        p += 17 + total;
    }
    return WI_JPEG_REDUCED_OK;
}

static int parse_dqt(decoder *d, const uint8_t *body, size_t length) {
    size_t p = 0;
    while (p < length) {
        int precision = body[p] >> 4, id = body[p] & 0x0F;
        if (precision > 1 || id > 3) return WI_JPEG_REDUCED_MALFORMED;
        size_t need = 1 + (precision ? 128 : 64);
        // libjpeg accepts a short last table (the rest of it 1s); that is left to it.
        if (length - p < need) return WI_JPEG_REDUCED_UNSUPPORTED;
        for (int i = 0; i < 64; i++) {
            int value = precision ? read16(body + p + 1 + 2 * i) : body[p + 1 + i];
            d->quant_tables[id][zigzag_to_natural[i]] = (uint16_t)value;
        }
        d->quant_defined[id] = 1;
        p += need;
    }
    return WI_JPEG_REDUCED_OK;
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

static int parse_frame(decoder *d, const uint8_t *body, size_t length) {
    if (d->have_frame) return WI_JPEG_REDUCED_MALFORMED;
    if (length < 6) return WI_JPEG_REDUCED_MALFORMED;
    if (body[0] != 8) return WI_JPEG_REDUCED_UNSUPPORTED;
    d->height = read16(body + 1);
    d->width = read16(body + 3);
    d->component_count = body[5];
    if (d->component_count != 1 && d->component_count != 3 && d->component_count != 4) return WI_JPEG_REDUCED_UNSUPPORTED;
    if (length != 6 + 3 * (size_t)d->component_count) return WI_JPEG_REDUCED_MALFORMED;
    if (d->width <= 0 || d->height <= 0) return WI_JPEG_REDUCED_UNSUPPORTED;
    if (d->width > MAX_DIMENSION || d->height > MAX_DIMENSION) return WI_JPEG_REDUCED_LIMIT;
    d->max_h = 1;
    d->max_v = 1;
    for (int c = 0; c < d->component_count; c++) {
        component *k = &d->comps[c];
        k->id = body[6 + 3 * c];
        k->h = body[7 + 3 * c] >> 4;
        k->v = body[7 + 3 * c] & 0x0F;
        k->quant_selector = body[8 + 3 * c];
        if (k->h < 1 || k->h > 4 || k->v < 1 || k->v > 4 || k->quant_selector > 3) return WI_JPEG_REDUCED_MALFORMED;
        for (int e = 0; e < c; e++) if (d->comps[e].id == k->id) return WI_JPEG_REDUCED_UNSUPPORTED;
        if (k->h > d->max_h) d->max_h = k->h;
        if (k->v > d->max_v) d->max_v = k->v;
        for (int i = 0; i < 64; i++) k->bits[i] = -1;
    }
    d->mcus_per_row = ceil_div(d->width, 8 * d->max_h);
    d->mcu_rows = ceil_div(d->height, 8 * d->max_v);
    size_t blocks_total = 0;
    for (int c = 0; c < d->component_count; c++) {
        component *k = &d->comps[c];
        // libjpeg's choice of DCT scaled size: from the minimum, doubled while that replaces
        // upsampling.
        int base = d->min_scaled, size = base;
        int span_h = d->max_h * base, span_v = d->max_v * base;
        while (size < 8 && span_h % (k->h * size * 2) == 0 && span_v % (k->v * size * 2) == 0) size *= 2;
        // A component scaled up more than once (4× at 1/8, 8× at 1/4) is left to libjpeg.
        if (size > 2 * base) return WI_JPEG_REDUCED_UNSUPPORTED;
        k->scaled = size;
        // Replication by an integral factor (libjpeg refuses fractional sampling); above the
        // minimum size 1 libjpeg upsamples with its fancy filters instead, left to it.
        if (span_h % (k->h * size) != 0 || span_v % (k->v * size) != 0) return WI_JPEG_REDUCED_UNSUPPORTED;
        if (base > 1 && (span_h != k->h * size || span_v != k->v * size)) return WI_JPEG_REDUCED_UNSUPPORTED;
        k->width_blocks = (int)(((int64_t)d->width * k->h + 8 * d->max_h - 1) / (8 * d->max_h));
        k->height_blocks = (int)(((int64_t)d->height * k->v + 8 * d->max_v - 1) / (8 * d->max_v));
        k->padded_width = d->mcus_per_row * k->h;
        k->padded_height = d->mcu_rows * k->v;
        k->plane_width = k->width_blocks * size;
        k->plane_height = k->height_blocks * size;
        blocks_total += (size_t)k->width_blocks * (size_t)k->height_blocks;
    }
    // Every block's DC is Huffman-coded with at least one bit: more blocks than eight per byte
    // of data cannot all be coded (a small file declaring a huge frame).
    if (blocks_total / 8 > d->size) return WI_JPEG_REDUCED_LIMIT;
    for (int c = 0; c < d->component_count; c++) {
        component *k = &d->comps[c];
        k->dc = allocate(d, (size_t)k->padded_width * (size_t)k->padded_height, sizeof(int16_t), 1);
        if (!k->dc) return WI_JPEG_REDUCED_LIMIT;
        if (k->scaled > 1) {
            d->ac_scans[c] = allocate(d, MAX_AC_SCANS, sizeof(ac_scan), 0);
            if (!d->ac_scans[c]) return WI_JPEG_REDUCED_LIMIT;
        }
    }
    d->have_frame = 1;
    return WI_JPEG_REDUCED_OK;
}

/// The end of the entropy-coded data from `start`: the first FF followed by a byte other than
/// 00 (stuffing), FF (fill) or D0…D7 (restart markers, which stay inside the scan). `size` when
/// the data ends first.
static size_t skip_entropy_data(const uint8_t *data, size_t size, size_t start) {
    size_t p = start;
    while (p + 1 < size) {
        const uint8_t *hit = memchr(data + p, 0xFF, size - 1 - p);
        if (!hit) break;
        p = (size_t)(hit - data);
        uint8_t next = data[p + 1];
        if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) p += 2;
        else if (next == 0xFF) p += 1;
        else return p;
    }
    return size;
}

/// Decodes one DC scan (first or refinement) into the components' DC arrays.
static int decode_dc_scan(decoder *d, component **members, int count, const decode_table *tables,
                          int ah, int al, size_t start, size_t end) {
    bit_reader r;
    reader_start(&r, d->data, start, end);
    int interleaved = count > 1;
    int rows = interleaved ? d->mcu_rows : members[0]->height_blocks;
    int columns = interleaved ? d->mcus_per_row : members[0]->width_blocks;
    int32_t predictor[MAX_COMPONENTS] = {0, 0, 0, 0};
    unsigned restarts_to_go = d->restart_interval;
    int next_restart = 0;
    for (int my = 0; my < rows; my++) {
        for (int mx = 0; mx < columns; mx++) {
            if (d->restart_interval) {
                if (restarts_to_go == 0) {
                    if (!reader_at_end(&r) || !reader_restart(&r, next_restart)) return WI_JPEG_REDUCED_BAD_DATA;
                    next_restart = (next_restart + 1) & 7;
                    restarts_to_go = d->restart_interval;
                    for (int i = 0; i < MAX_COMPONENTS; i++) predictor[i] = 0;
                }
                restarts_to_go--;
            }
            for (int i = 0; i < count; i++) {
                component *k = members[i];
                int bh = interleaved ? k->h : 1, bv = interleaved ? k->v : 1;
                for (int y = 0; y < bv; y++) {
                    for (int x = 0; x < bh; x++) {
                        int16_t *coef = &k->dc[(size_t)(my * bv + y) * (size_t)k->padded_width + (size_t)(mx * bh + x)];
                        if (ah == 0) {
                            int s = reader_decode(&r, &tables[i]);
                            if (s < 0) return WI_JPEG_REDUCED_BAD_DATA;
                            int32_t diff = s ? extend(reader_bits(&r, s), s) : 0;
                            int32_t last = predictor[i];
                            if ((last >= 0 && diff > INT32_MAX - last) || (last < 0 && diff < INT32_MIN - last))
                                return WI_JPEG_REDUCED_BAD_DATA;
                            predictor[i] = last + diff;
                            *coef = (int16_t)(uint16_t)((uint32_t)predictor[i] << al);
                        } else if (reader_bits(&r, 1)) {
                            *coef = (int16_t)(uint16_t)((uint16_t)*coef | (uint16_t)(1u << al));
                        }
                    }
                }
            }
            if (!reader_ok(&r)) return WI_JPEG_REDUCED_BAD_DATA;
        }
    }
    return reader_at_end(&r) ? WI_JPEG_REDUCED_OK : WI_JPEG_REDUCED_BAD_DATA;
}

static int parse_scan(decoder *d, const uint8_t *body, size_t length, size_t data_start, size_t *scan_end) {
    if (!d->have_frame) return WI_JPEG_REDUCED_MALFORMED;
    if (d->scan_count >= MAX_SCANS) return WI_JPEG_REDUCED_LIMIT;
    if (length < 1) return WI_JPEG_REDUCED_MALFORMED;
    int count = body[0];
    if (count < 1 || count > 4 || length != 4 + 2 * (size_t)count) return WI_JPEG_REDUCED_MALFORMED;
    component *members[MAX_COMPONENTS];
    int indices[MAX_COMPONENTS];
    int selectors[MAX_COMPONENTS];
    for (int i = 0; i < count; i++) {
        int found = -1;
        for (int c = 0; c < d->component_count; c++) if (d->comps[c].id == body[1 + 2 * i]) found = c;
        if (found < 0) return WI_JPEG_REDUCED_MALFORMED;
        for (int e = 0; e < i; e++) if (indices[e] == found) return WI_JPEG_REDUCED_MALFORMED;
        indices[i] = found;
        members[i] = &d->comps[found];
        selectors[i] = body[2 + 2 * i];
    }
    int ss = body[1 + 2 * count], se = body[2 + 2 * count];
    int ah = body[3 + 2 * count] >> 4, al = body[3 + 2 * count] & 0x0F;
    // The scan parameter checks libjpeg's progressive decoder makes (fatal there).
    if (ss == 0) {
        if (se != 0) return WI_JPEG_REDUCED_MALFORMED;
    } else if (ss > se || se > 63 || count != 1) {
        return WI_JPEG_REDUCED_MALFORMED;
    }
    if ((ah != 0 && al != ah - 1) || al > 13) return WI_JPEG_REDUCED_MALFORMED;
    if (count > 1) {
        int blocks = 0;
        for (int i = 0; i < count; i++) blocks += members[i]->h * members[i]->v;
        if (blocks > MAX_BLOCKS_IN_MCU) return WI_JPEG_REDUCED_MALFORMED;
    }
    // The scan's data must have fully arrived.
    size_t end = skip_entropy_data(d->data, d->size, data_start);
    if (end >= d->size) return WI_JPEG_REDUCED_INCOMPLETE;
    *scan_end = end;

    // Quantisation tables are latched at each component's first scan.
    for (int i = 0; i < count; i++) {
        component *k = members[i];
        if (!k->quant_latched) {
            if (!d->quant_defined[k->quant_selector]) return WI_JPEG_REDUCED_MALFORMED;
            memcpy(k->quant, d->quant_tables[k->quant_selector], sizeof k->quant);
            k->quant_latched = 1;
        }
    }
    // The progression bookkeeping libjpeg warns about (an AC scan before the component's DC,
    // or a scan whose Ah is not the Al its coefficients were last coded with).
    for (int i = 0; i < count; i++) {
        component *k = members[i];
        if (ss != 0 && k->bits[0] < 0) return WI_JPEG_REDUCED_MALFORMED;
        for (int j = ss; j <= se; j++) {
            int expected = k->bits[j] < 0 ? 0 : k->bits[j];
            if (ah != expected) return WI_JPEG_REDUCED_MALFORMED;
        }
    }
    for (int i = 0; i < count; i++) for (int j = ss; j <= se; j++) members[i]->bits[j] = al;
    d->scan_count++;

    if (ss == 0) {
        decode_table tables[MAX_COMPONENTS];
        if (ah == 0) {
            for (int i = 0; i < count; i++) {
                int selector = selectors[i] >> 4;
                if (selector > 3 || !build_table(&d->dc_tables[selector], 1, &tables[i])) return WI_JPEG_REDUCED_MALFORMED;
            }
        }
        int rc = decode_dc_scan(d, members, count, tables, ah, al, data_start, end);
        if (rc != WI_JPEG_REDUCED_OK) return rc;
    } else {
        int selector = selectors[0] & 0x0F;
        if (selector > 3) return WI_JPEG_REDUCED_MALFORMED;
        component *k = members[0];
        if (k->scaled > 1) {
            if (k->ac_scan_count >= MAX_AC_SCANS) return WI_JPEG_REDUCED_LIMIT;
            ac_scan *scan = &d->ac_scans[indices[0]][k->ac_scan_count++];
            if (!build_table(&d->ac_tables[selector], 0, &scan->table)) return WI_JPEG_REDUCED_MALFORMED;
            reader_start(&scan->reader, d->data, data_start, end);
            scan->ss = ss;
            scan->se = se;
            scan->ah = ah;
            scan->al = al;
            scan->eob_run = 0;
            scan->restart_interval = d->restart_interval;
            scan->restarts_to_go = d->restart_interval;
            scan->next_restart = 0;
        } else if (!build_table(&d->ac_tables[selector], 0, &d->scratch)) {
            // Skipped, but libjpeg would refuse the table.
            return WI_JPEG_REDUCED_MALFORMED;
        }
    }
    return WI_JPEG_REDUCED_OK;
}

/// Walks the markers, decoding the DC scans and recording the AC scans of the components scaled
/// above size 1. In prefix mode, stops without a failure where the data ends.
static int parse(decoder *d) {
    const uint8_t *b = d->data;
    size_t n = d->size;
    if (n < 2 || b[0] != 0xFF || b[1] != 0xD8) return WI_JPEG_REDUCED_UNSUPPORTED;
    size_t p = 2;
    for (;;) {
        if (p >= n) return WI_JPEG_REDUCED_INCOMPLETE;
        if (b[p] != 0xFF) return WI_JPEG_REDUCED_MALFORMED;
        while (p < n && b[p] == 0xFF) p++;
        if (p >= n) return WI_JPEG_REDUCED_INCOMPLETE;
        int marker = b[p++];
        if (marker == 0xD9) {
            if (d->scan_count == 0) return WI_JPEG_REDUCED_MALFORMED;
            d->reached_eoi = 1;
            return WI_JPEG_REDUCED_OK;
        }
        if (n - p < 2) return WI_JPEG_REDUCED_INCOMPLETE;
        size_t length = (size_t)read16(b + p);
        if (length < 2) return WI_JPEG_REDUCED_MALFORMED;
        if (length > n - p) return WI_JPEG_REDUCED_INCOMPLETE;
        const uint8_t *body = b + p + 2;
        size_t body_length = length - 2;
        size_t next = p + length;
        int rc = WI_JPEG_REDUCED_OK;
        switch (marker) {
        case 0xC4:
            rc = parse_dht(d, body, body_length);
            break;
        case 0xDB:
            rc = parse_dqt(d, body, body_length);
            break;
        case 0xDD:
            if (body_length != 2) return WI_JPEG_REDUCED_MALFORMED;
            d->restart_interval = (unsigned)read16(body);
            break;
        case 0xC2:
            rc = parse_frame(d, body, body_length);
            break;
        case 0xDA:
            rc = parse_scan(d, body, body_length, next, &next);
            break;
        case 0xE0:
            if (body_length >= 14 && memcmp(body, "JFIF\0", 5) == 0) d->saw_jfif = 1;
            break;
        case 0xEE:
            if (body_length >= 12 && memcmp(body, "Adobe", 5) == 0) {
                d->saw_adobe = 1;
                d->adobe_transform = body[11];
            }
            break;
        default:
            if ((marker >= 0xE1 && marker <= 0xEF) || marker == 0xFE) break;
            // Other frames (baseline, lossless, arithmetic), DAC, DNL, RSTn or SOI out of place.
            return (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xCC && !d->have_frame)
                ? WI_JPEG_REDUCED_UNSUPPORTED : WI_JPEG_REDUCED_MALFORMED;
        }
        if (rc != WI_JPEG_REDUCED_OK) return rc;
        p = next;
    }
}

// ---------------------------------------------------------------------------------------------
// AC decoding of the components scaled above size 1, one block at a time (T.81 G.1.2.2, G.1.2.3)

/// The next block of an AC first scan into `block` (natural order); bit `k` of `*nonzero` says
/// whether the coefficient at zigzag index `k` is not zero.
static int decode_ac_first(ac_scan *s, int16_t *block, uint64_t *nonzero) {
    bit_reader *r = &s->reader;
    if (s->eob_run > 0) {
        s->eob_run--;
        return 1;
    }
    for (int k = s->ss; k <= s->se; k++) {
        // One refill for the code (at most 16 bits) and its value's bits (at most 15).
        if (r->count < 32) reader_fill(r);
        int symbol = reader_decode(r, &s->table);
        if (symbol < 0) return 0;
        int run = symbol >> 4, size = symbol & 15;
        if (size) {
            k += run;
            // A coefficient past the band: libjpeg stores it where no encoder would put it.
            if (k > s->se) return 0;
            uint32_t bits = (uint32_t)(r->buffer >> (64 - size));
            reader_consume(r, size);
            int32_t value = extend(bits, size);
            int16_t stored = (int16_t)(uint16_t)((uint32_t)value << s->al);
            block[zigzag_to_natural[k]] = stored;
            if (stored) *nonzero |= (uint64_t)1 << k;
            else *nonzero &= ~((uint64_t)1 << k);
        } else if (run == 15) {
            k += 15;
        } else {
            s->eob_run = 1u << run;
            if (run) s->eob_run += reader_bits(r, run);
            s->eob_run--;
            break;
        }
    }
    return reader_ok(r);
}

/// The bits of zigzag positions `from` … `to` (inclusive; 0 ≤ `to`, `from` ≤ 63; `from` may be
/// `to` + 1: none).
static inline uint64_t band_mask(int from, int to) {
    return (~(uint64_t)0 >> (63 - to)) & (~(uint64_t)0 << from);
}

/// Reads one correction bit for each already-nonzero coefficient of `positions` (zigzag bits, in
/// increasing order) and appends it to the coefficient (T.81 G.1.2.3): a 1 adds the scan's bit
/// to the magnitude unless it is already set.
static inline void correct_all(bit_reader *r, int16_t *block, uint64_t positions, int32_t p1) {
    while (positions) {
        if (r->count < 16) reader_fill(r);
        uint64_t bits = r->buffer;
        int used = 0;
        do {
            int16_t *coef = &block[zigzag_to_natural[__builtin_ctzll(positions)]];
            positions &= positions - 1;
            // Without branches: the bit is random data.
            int32_t c = *coef, negative = c >> 31;
            int32_t apply = (int32_t)(bits >> 63) & ((c & p1) == 0);
            *coef = (int16_t)(uint16_t)(uint32_t)(c + (((p1 ^ negative) - negative) & -apply));
            bits <<= 1;
            used++;
        } while (positions && used < 16);
        reader_consume(r, used);
    }
}

/// The next block of an AC refinement scan (`nonzero` as for ``decode_ac_first``).
static int decode_ac_refine(ac_scan *s, int16_t *block, uint64_t *nonzero) {
    bit_reader *r = &s->reader;
    int32_t p1 = 1 << s->al;
    int k = s->ss;
    if (s->eob_run == 0) {
        while (k <= s->se) {
            // One refill for the code (at most 16 bits) and a new coefficient's sign bit.
            if (r->count < 17) reader_fill(r);
            int symbol = reader_decode(r, &s->table);
            if (symbol < 0) return 0;
            int run = symbol >> 4, size = symbol & 15;
            int32_t value = 0;
            if (size) {
                if (size != 1) return 0;  // libjpeg warns: a new coefficient is always ±1 here
                value = (r->buffer >> 63) ? p1 : -p1;
                reader_consume(r, 1);
            } else if (run != 15) {
                s->eob_run = 1u << run;
                if (run) s->eob_run += reader_bits(r, run);
                break;
            }
            // Past already-nonzero coefficients (each with a correction bit) to the zero
            // coefficient after `run` zero ones, where a new coefficient goes.
            if (k + run <= s->se && ((*nonzero >> k) & ((2u << run) - 1)) == 0) {
                // No nonzero coefficient in the way (the usual case). An end-of-zero-run
                // (value 0) writes a zero over a zero.
                block[zigzag_to_natural[k + run]] = (int16_t)value;
                *nonzero |= (uint64_t)(value != 0) << (k + run);
                k += run + 1;
                continue;
            }
            uint64_t rest = band_mask(k, s->se);
            uint64_t zeros = ~*nonzero & rest;
            for (int i = 0; i < run && zeros; i++) zeros &= zeros - 1;
            if (zeros == 0) {
                // The band ends first: libjpeg would store a new coefficient past it.
                if (value) return 0;
                correct_all(r, block, *nonzero & rest, p1);
                k = s->se + 1;
                break;
            }
            int target = __builtin_ctzll(zeros);
            correct_all(r, block, *nonzero & band_mask(k, target - 1), p1);
            block[zigzag_to_natural[target]] = (int16_t)value;
            *nonzero |= (uint64_t)(value != 0) << target;
            k = target + 1;
        }
    }
    if (s->eob_run > 0) {
        // A correction bit for each nonzero coefficient from k to Se, in order.
        if (k <= s->se) correct_all(r, block, *nonzero & band_mask(k, s->se), p1);
        s->eob_run--;
    }
    return reader_ok(r);
}

// ---------------------------------------------------------------------------------------------
// Reduced inverse DCTs

/// libjpeg's post-IDCT range limit: `v` (before the +128 level shift) masked to 10 bits.
static inline uint8_t idct_limit(int32_t v) {
    int i = v & 1023;
    if (i < 128) return (uint8_t)(i + 128);
    if (i < 512) return 255;
    if (i < 896) return 0;
    return (uint8_t)(i - 896);
}

/// Scaled size 1: the dequantised DC divided by 8, rounded.
static inline uint8_t idct_1x1(int16_t dc, uint16_t quant) {
    int32_t value = (int32_t)dc * (int32_t)(int16_t)quant;
    return idct_limit((int32_t)(((int64_t)value + 4) >> 3));
}

enum {
    FIX_0_720959822 = 5906,
    FIX_0_850430095 = 6967,
    FIX_1_272758580 = 10426,
    FIX_3_624509785 = 29692,
};

/// Non-zero when `v` is outside the 32-bit (16-bit) signed range; or-ed together so that a
/// block's range checks cost no branches.
static inline uint64_t outside32(int64_t v) { return (uint64_t)(v + ((int64_t)1 << 31)) >> 32; }
static inline uint32_t outside16(int32_t v) { return (uint32_t)(v + 32768) >> 16; }
/// Non-zero when `v` is outside the range limit's unwrapped span, -512…511.
static inline uint32_t outside_span(int64_t v) { return (uint64_t)(v + 512) > 1023; }

/// A block whose only nonzero coefficient is the DC, at any scaled size: every output sample is
/// the dequantised DC divided by 8, rounded (what both passes of the reduced IDCT give then).
/// `low`…`high` bounds the dequantised DC as the full IDCT's checks would.
static int idct_flat(int16_t dc, uint16_t quant, int32_t low, int32_t high, uint8_t *out, size_t stride, int size) {
    int32_t v = (int32_t)dc * (int32_t)(int16_t)quant;
    if (v < low || v > high) return 0;
    int32_t value = (v + 4) >> 3;
    if (outside_span(value)) return 0;
    uint8_t sample = idct_limit(value);
    for (int y = 0; y < size; y++) memset(out + (size_t)y * stride, sample, (size_t)size);
    return 1;
}

enum {
    /// Dequantised coefficients at most this large keep every value of the 2×2 IDCT within 16
    /// bits between the passes (at most 10.47 times it) and every sum of the second pass within
    /// 32 bits (the first pass's outputs at most 25034), so no check is needed but the last.
    IDCT2_SMALL_LIMIT = 2391,
};

/// Zigzag bits of the AC coefficients the 2×2 IDCT reads in each of its columns 0, 1, 3, 5, 7
/// (rows 0, 1, 3, 5, 7 of that column, the DC excluded).
static const uint64_t idct2_column_ac[5] = {
    0x800100204ull, 0x1000400812ull, 0x2004001002040ull, 0x408010004008000ull, 0x9020040010000000ull,
};

/// One column (`col`) of the first pass: both rows into `w0`, `w1`. Nonzero when a dequantised
/// coefficient exceeds ``IDCT2_SMALL_LIMIT`` (then nothing is computed).
static inline uint32_t idct2_small_column(const int16_t *coef, const uint16_t *quant, int col, int32_t *w0, int32_t *w1) {
    int32_t d0 = (int32_t)coef[col] * (int32_t)(int16_t)quant[col];
    int32_t d1 = (int32_t)coef[8 + col] * (int32_t)(int16_t)quant[8 + col];
    int32_t d3 = (int32_t)coef[24 + col] * (int32_t)(int16_t)quant[24 + col];
    int32_t d5 = (int32_t)coef[40 + col] * (int32_t)(int16_t)quant[40 + col];
    int32_t d7 = (int32_t)coef[56 + col] * (int32_t)(int16_t)quant[56 + col];
    uint32_t bad = ((uint32_t)(d0 + IDCT2_SMALL_LIMIT) > 2 * IDCT2_SMALL_LIMIT)
        | ((uint32_t)(d1 + IDCT2_SMALL_LIMIT) > 2 * IDCT2_SMALL_LIMIT)
        | ((uint32_t)(d3 + IDCT2_SMALL_LIMIT) > 2 * IDCT2_SMALL_LIMIT)
        | ((uint32_t)(d5 + IDCT2_SMALL_LIMIT) > 2 * IDCT2_SMALL_LIMIT)
        | ((uint32_t)(d7 + IDCT2_SMALL_LIMIT) > 2 * IDCT2_SMALL_LIMIT);
    if (bad) return 1;
    int32_t tmp10 = d0 * (1 << 15);
    int32_t tmp0 = d7 * -FIX_0_720959822 + d5 * FIX_0_850430095 + d3 * -FIX_1_272758580 + d1 * FIX_3_624509785;
    *w0 = (tmp10 + tmp0 + (1 << 12)) >> 13;
    *w1 = (tmp10 - tmp0 + (1 << 12)) >> 13;
    return 0;
}

/// The 2×2 IDCT in 32-bit arithmetic for a block whose dequantised coefficients are all within
/// ``IDCT2_SMALL_LIMIT`` (the usual case); 0, with nothing written, otherwise or when a result
/// leaves the range limit's unwrapped span. A column without AC coefficients (`nonzero`, zigzag
/// bits) gives four times its DC in both rows, as the full first pass would.
static inline int idct_2x2_small(const int16_t *coef, const uint16_t *quant, uint64_t nonzero, uint8_t *out, size_t stride) {
    int32_t w[2][5] = {{0}};
    uint32_t bad = 0;
    if ((nonzero & idct2_column_ac[0]) == 0) {
        int32_t dc = (int32_t)coef[0] * (int32_t)(int16_t)quant[0];
        bad |= (uint32_t)(dc + IDCT2_SMALL_LIMIT) > 2 * IDCT2_SMALL_LIMIT;
        w[0][0] = w[1][0] = dc * 4;
    } else {
        bad |= idct2_small_column(coef, quant, 0, &w[0][0], &w[1][0]);
    }
    if (nonzero & idct2_column_ac[1]) bad |= idct2_small_column(coef, quant, 1, &w[0][1], &w[1][1]);
    if (nonzero & idct2_column_ac[2]) bad |= idct2_small_column(coef, quant, 3, &w[0][2], &w[1][2]);
    if (nonzero & idct2_column_ac[3]) bad |= idct2_small_column(coef, quant, 5, &w[0][3], &w[1][3]);
    if (nonzero & idct2_column_ac[4]) bad |= idct2_small_column(coef, quant, 7, &w[0][4], &w[1][4]);
    if (bad) return 0;
    int32_t v[4];
    for (int row = 0; row < 2; row++) {
        int32_t tmp10 = w[row][0] * (1 << 15);
        int32_t tmp0 = w[row][4] * -FIX_0_720959822 + w[row][3] * FIX_0_850430095
            + w[row][2] * -FIX_1_272758580 + w[row][1] * FIX_3_624509785;
        v[2 * row] = (tmp10 + tmp0 + (1 << 19)) >> 20;
        v[2 * row + 1] = (tmp10 - tmp0 + (1 << 19)) >> 20;
    }
    for (int i = 0; i < 4; i++) bad |= outside_span(v[i]);
    if (bad) return 0;
    out[0] = idct_limit(v[0]);
    out[1] = idct_limit(v[1]);
    out[stride] = idct_limit(v[2]);
    out[stride + 1] = idct_limit(v[3]);
    return 1;
}

/// Scaled size 2: the 2×2 reduced inverse DCT (the same integer arithmetic as libjpeg-turbo's,
/// 13 fractional bits, 2 bits kept between the passes; rows and columns 0, 1, 3, 5 and 7). 0 when
/// a value leaves the range where its C and SIMD versions agree (16-bit products and passes,
/// 32-bit sums, final values within the range limit's unwrapped span).
static int idct_2x2(const int16_t *coef, const uint16_t *quant, uint64_t nonzero, uint8_t *out, size_t stride) {
    if (nonzero == 0) return idct_flat(coef[0], quant[0], -8192, 8191, out, stride, 2);  // 4 × DC in 16 bits
    static const int used[5] = {0, 1, 3, 5, 7};
    if (idct_2x2_small(coef, quant, nonzero, out, stride)) return 1;
    int32_t workspace[2][8];
    uint64_t bad = 0;
    for (int ci = 0; ci < 5; ci++) {
        int col = used[ci];
        int32_t dq[8];
        for (int ri = 0; ri < 5; ri++) {
            int row = used[ri];
            int32_t v = (int32_t)coef[row * 8 + col] * (int32_t)(int16_t)quant[row * 8 + col];
            bad |= outside16(v);
            dq[row] = v;
        }
        int64_t tmp10 = (int64_t)dq[0] * (1 << 15);
        int64_t tmp0 = (int64_t)dq[7] * -FIX_0_720959822 + (int64_t)dq[5] * FIX_0_850430095
            + (int64_t)dq[3] * -FIX_1_272758580 + (int64_t)dq[1] * FIX_3_624509785;
        int64_t a = tmp10 + tmp0 + (1 << 12), b = tmp10 - tmp0 + (1 << 12);
        bad |= outside32(tmp0) | outside32(a) | outside32(b);
        int32_t w0 = (int32_t)(a >> 13), w1 = (int32_t)(b >> 13);
        bad |= outside16(w0) | outside16(w1);
        workspace[0][col] = w0;
        workspace[1][col] = w1;
    }
    uint8_t values[4];
    for (int row = 0; row < 2; row++) {
        const int32_t *w = workspace[row];
        int64_t tmp10 = (int64_t)w[0] * (1 << 15);
        int64_t tmp0 = (int64_t)w[7] * -FIX_0_720959822 + (int64_t)w[5] * FIX_0_850430095
            + (int64_t)w[3] * -FIX_1_272758580 + (int64_t)w[1] * FIX_3_624509785;
        int64_t a = tmp10 + tmp0 + (1 << 19), b = tmp10 - tmp0 + (1 << 19);
        bad |= outside32(tmp0) | outside32(a) | outside32(b);
        int64_t v0 = a >> 20, v1 = b >> 20;
        bad |= outside_span(v0) | outside_span(v1);
        values[2 * row] = idct_limit((int32_t)v0);
        values[2 * row + 1] = idct_limit((int32_t)v1);
    }
    if (bad) return 0;
    out[0] = values[0];
    out[1] = values[1];
    out[stride] = values[2];
    out[stride + 1] = values[3];
    return 1;
}

enum {
    FIX_0_211164243 = 1730,
    FIX_0_509795579 = 4176,
    FIX_0_601344887 = 4926,
    FIX_0_765366865 = 6270,
    FIX_0_899976223 = 7373,
    FIX_1_061594337 = 8697,
    FIX_1_451774981 = 11893,
    FIX_1_847759065 = 15137,
    FIX_2_172734803 = 17799,
    FIX_2_562915447 = 20995,
    /// The largest magnitude of an input to either pass of the 4×4 IDCT for which no partial sum
    /// of any output (at most 77910 times it, plus rounding) leaves 32 bits, in any order.
    IDCT4_INPUT_LIMIT = 27000,
};

/// Non-zero when `v` exceeds ``IDCT4_INPUT_LIMIT`` in magnitude.
static inline uint32_t outside_idct4(int32_t v) { return (uint32_t)(v + IDCT4_INPUT_LIMIT) > 2 * IDCT4_INPUT_LIMIT; }

/// One 4-point pass of the 4×4 reduced inverse DCT over `in[0…7]` (index 4 unused), with
/// `shift` fractional bits dropped (rounded) from the outputs. Inputs within
/// ``IDCT4_INPUT_LIMIT`` keep every sum within 32 bits.
static inline void idct4_pass(const int32_t *in, int shift, int32_t out[4]) {
    int32_t even = in[0] * (1 << 14);
    int32_t rotated = in[2] * FIX_1_847759065 - in[6] * FIX_0_765366865;
    int32_t sum10 = even + rotated, sum12 = even - rotated;
    int32_t odd0 = -in[7] * FIX_0_211164243 + in[5] * FIX_1_451774981
        - in[3] * FIX_2_172734803 + in[1] * FIX_1_061594337;
    int32_t odd2 = -in[7] * FIX_0_509795579 - in[5] * FIX_0_601344887
        + in[3] * FIX_0_899976223 + in[1] * FIX_2_562915447;
    int32_t round = (int32_t)1 << (shift - 1);
    out[0] = (sum10 + odd2 + round) >> shift;
    out[3] = (sum10 - odd2 + round) >> shift;
    out[1] = (sum12 + odd0 + round) >> shift;
    out[2] = (sum12 - odd0 + round) >> shift;
}

/// Scaled size 4: the 4×4 reduced inverse DCT (libjpeg-turbo's integer arithmetic: 13
/// fractional bits, 2 kept between the passes; rows and columns 0, 1, 2, 3, 5, 6 and 7). 0 when
/// an input of either pass exceeds ``IDCT4_INPUT_LIMIT`` (beyond it the SIMD version's 16-bit
/// products or 32-bit sums could wrap where the C version does not) or a result leaves the
/// range limit's unwrapped span.
static int idct_4x4(const int16_t *coef, const uint16_t *quant, uint64_t nonzero, uint8_t *out, size_t stride) {
    if (nonzero == 0) return idct_flat(coef[0], quant[0], -IDCT4_INPUT_LIMIT / 4, IDCT4_INPUT_LIMIT / 4, out, stride, 4);
    // Zigzag bits of the AC coefficients the 4×4 IDCT reads in each column (rows 0-3, 5-7; the
    // DC excluded); a column without them gives four times its DC in every row.
    static const uint64_t column_ac[8] = {
        0x80030020cull, 0x1400400912ull, 0x10022000410a0ull, 0x2804001022040ull, 0,
        0x508010044008000ull, 0x4880120028000000ull, 0xb0200c0010000000ull,
    };
    int32_t workspace[4][8];
    uint32_t bad = 0;
    for (int col = 0; col < 8; col++) {
        if (col == 4) continue;
        if ((nonzero & column_ac[col]) == 0) {
            int32_t dc = col == 0 ? (int32_t)coef[0] * (int32_t)(int16_t)quant[0] : 0;
            bad |= outside_idct4(dc) | outside_idct4(dc * 4);
            for (int row = 0; row < 4; row++) workspace[row][col] = dc * 4;
            continue;
        }
        int32_t dq[8];
        for (int row = 0; row < 8; row++) {
            int32_t v = row == 4 ? 0 : (int32_t)coef[row * 8 + col] * (int32_t)(int16_t)quant[row * 8 + col];
            bad |= outside_idct4(v);
            dq[row] = v;
        }
        if (bad) return 0;
        int32_t column[4];
        idct4_pass(dq, 12, column);
        for (int row = 0; row < 4; row++) {
            bad |= outside_idct4(column[row]);
            workspace[row][col] = column[row];
        }
    }
    if (bad) return 0;
    uint8_t values[4][4];
    for (int row = 0; row < 4; row++) {
        workspace[row][4] = 0;
        int32_t results[4];
        idct4_pass(workspace[row], 19, results);
        for (int x = 0; x < 4; x++) {
            bad |= outside_span(results[x]);
            values[row][x] = idct_limit(results[x]);
        }
    }
    if (bad) return 0;
    for (int row = 0; row < 4; row++) memcpy(out + (size_t)row * stride, values[row], 4);
    return 1;
}

/// The component's samples at its scaled size.
static int make_plane(decoder *d, int index) {
    component *k = &d->comps[index];
    k->plane = allocate(d, (size_t)k->plane_width, (size_t)k->plane_height, 0);
    if (!k->plane) return WI_JPEG_REDUCED_LIMIT;
    if (k->scaled == 1) {
        uint16_t q = k->quant[0];
        for (int by = 0; by < k->height_blocks; by++) {
            const int16_t *dc = k->dc + (size_t)by * (size_t)k->padded_width;
            uint8_t *row = k->plane + (size_t)by * (size_t)k->plane_width;
            for (int bx = 0; bx < k->width_blocks; bx++) row[bx] = idct_1x1(dc[bx], q);
        }
        return WI_JPEG_REDUCED_OK;
    }
    ac_scan *scans = d->ac_scans[index];
    int scan_count = k->ac_scan_count;
    int16_t block[64];
    uint64_t nonzero;
    size_t stride = (size_t)k->plane_width;
    for (int by = 0; by < k->height_blocks; by++) {
        for (int bx = 0; bx < k->width_blocks; bx++) {
            memset(block, 0, sizeof block);
            nonzero = 0;
            block[0] = k->dc[(size_t)by * (size_t)k->padded_width + (size_t)bx];
            for (int i = 0; i < scan_count; i++) {
                ac_scan *s = &scans[i];
                if (s->restart_interval) {
                    if (s->restarts_to_go == 0) {
                        if (!reader_at_end(&s->reader) || !reader_restart(&s->reader, s->next_restart)) {
                            return WI_JPEG_REDUCED_BAD_DATA;
                        }
                        s->next_restart = (s->next_restart + 1) & 7;
                        s->restarts_to_go = s->restart_interval;
                        s->eob_run = 0;
                    }
                    s->restarts_to_go--;
                }
                int ok = s->ah == 0 ? decode_ac_first(s, block, &nonzero) : decode_ac_refine(s, block, &nonzero);
                if (!ok) return WI_JPEG_REDUCED_BAD_DATA;
            }
            int size = k->scaled;
            uint8_t *out = k->plane + (size_t)by * (size_t)size * stride + (size_t)bx * (size_t)size;
            int exact = size == 2 ? idct_2x2(block, k->quant, nonzero, out, stride) : idct_4x4(block, k->quant, nonzero, out, stride);
            if (!exact) return WI_JPEG_REDUCED_OUT_OF_RANGE;
        }
    }
    for (int i = 0; i < scan_count; i++) {
        if (!reader_at_end(&scans[i].reader)) return WI_JPEG_REDUCED_BAD_DATA;
    }
    return WI_JPEG_REDUCED_OK;
}

// ---------------------------------------------------------------------------------------------
// Colour conversion (libjpeg's integer tables: 16 fractional bits, ONE_HALF rounding)

enum { SCALEBITS = 16, ONE_HALF = 1 << (SCALEBITS - 1) };
#define FIX(x) ((int32_t)((x) * (1L << SCALEBITS) + 0.5))

enum { RANGE_OFFSET = 384 };

typedef struct {
    int32_t cr_r[256], cb_b[256], cr_g[256], cb_g[256];
    /// `v` clamped to 0…255 at index `v` + ``RANGE_OFFSET`` (a luma plus a chroma term lies
    /// within -227…481).
    uint8_t range[1024];
} ycc_tables;

static inline uint8_t clamp255(int32_t v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

static void build_ycc(ycc_tables *t) {
    for (int i = 0; i < 256; i++) {
        int32_t x = i - 128;
        t->cr_r[i] = (FIX(1.40200) * x + ONE_HALF) >> SCALEBITS;
        t->cb_b[i] = (FIX(1.77200) * x + ONE_HALF) >> SCALEBITS;
        t->cr_g[i] = -FIX(0.71414) * x;
        t->cb_g[i] = -FIX(0.34414) * x + ONE_HALF;
    }
    for (int i = 0; i < 1024; i++) t->range[i] = clamp255(i - RANGE_OFFSET);
}


enum { COLOR_GRAY, COLOR_YCC, COLOR_RGB, COLOR_CMYK, COLOR_YCCK };

/// Replicates row `y` of component `k` to `width` output samples.
/// Row `y` of component `k` at `width` output samples: the plane's own row when it needs no
/// horizontal replication, else replicated into `scratch`.
static const uint8_t *expand_row(const decoder *d, const component *k, int y, int width, uint8_t *scratch) {
    int hexp = d->max_h * d->min_scaled / (k->h * k->scaled), vexp = d->max_v * d->min_scaled / (k->v * k->scaled);
    const uint8_t *row = k->plane + (size_t)(y / vexp) * (size_t)k->plane_width;
    if (hexp == 1) return row;
    for (int x = 0; x < width; x++) scratch[x] = row[x / hexp];
    return scratch;
}

static int convert(decoder *d, int color, uint8_t *pixels, size_t pitch, int width, int height) {
    // Every output sample must come from the component's decoded blocks.
    for (int c = 0; c < d->component_count; c++) {
        const component *k = &d->comps[c];
        int hexp = d->max_h * d->min_scaled / (k->h * k->scaled), vexp = d->max_v * d->min_scaled / (k->v * k->scaled);
        if ((width - 1) / hexp >= k->plane_width || (height - 1) / vexp >= k->plane_height) return WI_JPEG_REDUCED_UNSUPPORTED;
    }
    uint8_t *rows = allocate(d, (size_t)width, MAX_COMPONENTS, 0);
    if (!rows) return WI_JPEG_REDUCED_LIMIT;
    ycc_tables tables;
    if (color == COLOR_YCC || color == COLOR_YCCK) build_ycc(&tables);
    for (int y = 0; y < height; y++) {
        const uint8_t *in[MAX_COMPONENTS];
        for (int c = 0; c < d->component_count; c++) {
            in[c] = expand_row(d, &d->comps[c], y, width, rows + (size_t)c * (size_t)width);
        }
        uint8_t *out = pixels + (size_t)y * pitch;
        switch (color) {
        case COLOR_GRAY:
            for (int x = 0; x < width; x++) {
                out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = in[0][x];
                out[4 * x + 3] = 255;
            }
            break;
        case COLOR_RGB:
            for (int x = 0; x < width; x++) {
                out[4 * x] = in[0][x];
                out[4 * x + 1] = in[1][x];
                out[4 * x + 2] = in[2][x];
                out[4 * x + 3] = 255;
            }
            break;
        case COLOR_YCC:
            for (int x = 0; x < width; x++) {
                int32_t luma = in[0][x], cb = in[1][x], cr = in[2][x];
                const uint8_t *range = tables.range + RANGE_OFFSET;
                out[4 * x] = range[luma + tables.cr_r[cr]];
                out[4 * x + 1] = range[luma + ((tables.cb_g[cb] + tables.cr_g[cr]) >> SCALEBITS)];
                out[4 * x + 2] = range[luma + tables.cb_b[cb]];
                out[4 * x + 3] = 255;
            }
            break;
        case COLOR_CMYK:
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < 4; c++) out[4 * x + c] = in[c][x];
            }
            break;
        case COLOR_YCCK:
            for (int x = 0; x < width; x++) {
                int32_t luma = in[0][x], cb = in[1][x], cr = in[2][x];
                out[4 * x] = (uint8_t)(255 - clamp255(luma + tables.cr_r[cr]));
                out[4 * x + 1] = (uint8_t)(255 - clamp255(luma + ((tables.cb_g[cb] + tables.cr_g[cr]) >> SCALEBITS)));
                out[4 * x + 2] = (uint8_t)(255 - clamp255(luma + tables.cb_b[cb]));
                out[4 * x + 3] = in[3][x];
            }
            break;
        }
    }
    free(rows);
    d->allocated -= (size_t)width * MAX_COMPONENTS;
    return WI_JPEG_REDUCED_OK;
}

/// libjpeg's choice of the stored colour space (its default decompression parameters).
static int color_space(const decoder *d) {
    switch (d->component_count) {
    case 1:
        return COLOR_GRAY;
    case 3:
        if (d->saw_jfif) return COLOR_YCC;
        if (d->saw_adobe) {
            if (d->adobe_transform == 0) return COLOR_RGB;
            if (d->adobe_transform == 1) return COLOR_YCC;
            return -1;  // libjpeg warns
        }
        if (d->comps[0].id == 82 && d->comps[1].id == 71 && d->comps[2].id == 66) return COLOR_RGB;
        return COLOR_YCC;
    case 4:
        if (d->saw_adobe) {
            if (d->adobe_transform == 0) return COLOR_CMYK;
            if (d->adobe_transform == 2) return COLOR_YCCK;
            return -1;
        }
        return COLOR_CMYK;
    default:
        return -1;
    }
}

static int run(decoder *d, int cmyk, uint8_t *pixels, size_t pitch, uint32_t width, uint32_t height) {
    int rc = parse(d);
    if (rc == WI_JPEG_REDUCED_INCOMPLETE && d->accept_prefix && d->have_frame) rc = WI_JPEG_REDUCED_OK;
    if (rc != WI_JPEG_REDUCED_OK) return rc;
    if (!d->have_frame) return WI_JPEG_REDUCED_INCOMPLETE;
    int denominator = 8 / d->min_scaled;
    if ((uint32_t)ceil_div(d->width, denominator) != width || (uint32_t)ceil_div(d->height, denominator) != height
        || pitch / 4 < width)
        return WI_JPEG_REDUCED_UNSUPPORTED;
    int color = color_space(d);
    if (color < 0) return WI_JPEG_REDUCED_UNSUPPORTED;
    if ((d->component_count == 4) != (cmyk != 0)) return WI_JPEG_REDUCED_UNSUPPORTED;
    // Every coefficient the reduced IDCTs read must be exact; for a whole file every coefficient of
    // every component, or libjpeg's own decode would smooth the blocks.
    int needs_all_everywhere = d->reached_eoi;
    for (int c = 0; c < d->component_count; c++) {
        const component *k = &d->comps[c];
        int needs_all = needs_all_everywhere || k->scaled > 1;
        for (int j = 0; j < (needs_all ? 64 : 1); j++) if (k->bits[j] != 0) return WI_JPEG_REDUCED_INCOMPLETE;
        // libjpeg-turbo's IDCT multiplies by the step as a 16-bit signed value.
        for (int j = 0; j < (k->scaled > 1 ? 64 : 1); j++) {
            if (k->quant[j] == 0 || k->quant[j] > 32767) return WI_JPEG_REDUCED_UNSUPPORTED;
        }
    }
    for (int c = 0; c < d->component_count; c++) {
        rc = make_plane(d, c);
        if (rc != WI_JPEG_REDUCED_OK) return rc;
    }
    return convert(d, color, pixels, pitch, (int)width, (int)height);
}

int wi_jpeg_reduced_decode(
    const uint8_t *data, size_t size, int scale_denominator, int accept_prefix, int cmyk,
    uint8_t *pixels, size_t pitch, uint32_t width, uint32_t height, size_t memory_limit)
{
    if (data == NULL || pixels == NULL || width == 0 || height == 0) return WI_JPEG_REDUCED_UNSUPPORTED;
    if (scale_denominator != 8 && scale_denominator != 4) return WI_JPEG_REDUCED_UNSUPPORTED;
    decoder *d = calloc(1, sizeof(decoder));
    if (!d) return WI_JPEG_REDUCED_LIMIT;
    d->data = data;
    d->size = size;
    d->accept_prefix = accept_prefix;
    d->min_scaled = 8 / scale_denominator;
    d->memory_limit = memory_limit;
    int rc = run(d, cmyk, pixels, pitch, width, height);
    release(d);
    free(d);
    return rc;
}
