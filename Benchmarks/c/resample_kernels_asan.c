// AddressSanitizer harness for the row-pair resize kernels (scripts/asan-resample-kernels.sh):
// wi_resample_horizontal_rows4 and wi_resample_vertical_pairs(2) at the widest level this CPU
// has against their portable C, over random widths, tables and pixels, every row and pair row
// allocated to its exact size (so a read or write past one is reported).
#include "resample_kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static unsigned long long s = 88172645463325252ull;
static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)(s >> 11); }
int main(void) {
    int failures = 0;
    for (int iter = 0; iter < 3000; iter++) {
        ptrdiff_t width = 1 + rnd() % 300, outputs = 1 + rnd() % (width < 80 ? width + 3 : 80);
        ptrdiff_t stride = 1 + rnd() % 40; if (stride > width) stride = width;
        ptrdiff_t *starts = malloc(outputs * sizeof *starts), *counts = malloc(outputs * sizeof *counts);
        for (ptrdiff_t i = 0; i < outputs; i++) {
            ptrdiff_t st = (width - 1) * i / (outputs > 1 ? outputs - 1 : 1) - (ptrdiff_t)(rnd() % (stride));
            if (st < 0) st = 0;
            ptrdiff_t c = 1 + rnd() % stride; if (st + c > width) c = width - st;
            starts[i] = st; counts[i] = c;
        }
        ptrdiff_t bs = (stride + 7 + 7) / 8;
        int16_t *w = calloc(outputs * bs * 8, sizeof *w);
        for (ptrdiff_t i = 0; i < outputs; i++)
            for (ptrdiff_t k = 0; k < counts[i]; k++) w[i * bs * 8 + (starts[i] & 7) + k] = (int16_t)((int)(rnd() % 600) - 150);
        int32_t *plan = malloc(wi_resample_packed_plan_count(outputs) * sizeof *plan);
        wi_resample_packed_plan(outputs, starts, counts, plan);
        uint8_t *rows[4]; const uint8_t *crow[4];
        for (int r = 0; r < 4; r++) {
            rows[r] = malloc(width * 4);
            for (ptrdiff_t x = 0; x < width * 4; x++) rows[r][x] = (x % 4 == 3) ? (rnd() % 50 ? 255 : rnd() % 256) : rnd() % 256;
            crow[r] = rows[r];
        }
        ptrdiff_t sc = wi_resample_rows4_scratch_count(plan);
        int16_t *scratch = malloc(sc * sizeof(int16_t));
        int16_t *a0 = malloc(outputs * 6 * 2), *a1 = malloc(outputs * 6 * 2), *b0 = malloc(outputs * 6 * 2), *b1 = malloc(outputs * 6 * 2);
        int shift = 7, offset = 0;
        int ma = wi_resample_horizontal_rows4(4, crow, width, outputs, starts, counts, plan, w, bs, shift, offset, scratch, a0, a1, iter % 2 ? crow : NULL);
        int mb = wi_resample_horizontal_rows4(0, crow, width, outputs, starts, counts, plan, w, bs, shift, offset, scratch, b0, b1, NULL);
        if (ma != mb || memcmp(a0, b0, outputs * 12) || memcmp(a1, b1, outputs * 12)) {
            failures++;
            if (failures < 5) printf("rows4 mismatch iter %d width %td outputs %td masks %d %d\n", iter, width, outputs, ma, mb);
        }
        // Vertical pairs over random pair rows.
        ptrdiff_t pc = 1 + rnd() % 40, vw = 1 + rnd() % 70;
        int16_t **pr = malloc(pc * sizeof *pr); int32_t *pw = malloc(pc * sizeof *pw);
        for (ptrdiff_t q = 0; q < pc; q++) {
            pr[q] = malloc(vw * 12);
            for (ptrdiff_t x = 0; x < vw * 6; x++) pr[q][x] = (int16_t)((int)(rnd() % 65536) - 32768) / 2;
            pw[q] = (int32_t)((rnd() % 512) | ((rnd() % 512) << 16));
        }
        uint8_t *oa = malloc(vw * 4), *ob = malloc(vw * 4);
        wi_resample_vertical_pairs(4, (const int16_t *const *)pr, pw, pc, vw, 14, oa);
        wi_resample_vertical_pairs(0, (const int16_t *const *)pr, pw, pc, vw, 14, ob);
        if (memcmp(oa, ob, vw * 4)) { failures++; if (failures < 5) printf("vertical mismatch iter %d\n", iter); }
        // Two output rows at once: the second with the weights reversed.
        int32_t *rw = malloc(pc * sizeof *rw);
        for (ptrdiff_t q = 0; q < pc; q++) rw[q] = pw[pc - 1 - q];
        uint8_t *o2a = malloc(vw * 4), *o2b = malloc(vw * 4), *oc = malloc(vw * 4);
        wi_resample_vertical_pairs2(4, (const int16_t *const *)pr, pw, rw, pc, vw, 14, o2a, o2b);
        wi_resample_vertical_pairs(0, (const int16_t *const *)pr, rw, pc, vw, 14, oc);
        if (memcmp(o2a, ob, vw * 4) || memcmp(o2b, oc, vw * 4)) {
            failures++;
            if (failures < 5) printf("two-row vertical mismatch iter %d\n", iter);
        }
        free(rw); free(o2a); free(o2b); free(oc);
        for (ptrdiff_t q = 0; q < pc; q++) free(pr[q]);
        free(pr); free(pw); free(oa); free(ob);
        for (int r = 0; r < 4; r++) free(rows[r]);
        free(scratch); free(a0); free(a1); free(b0); free(b1); free(plan); free(w); free(starts); free(counts);
    }
    printf("failures: %d\n", failures);
    return failures != 0;
}
