/* Shared by the benchmark programs in this folder (decode_bench.c, encode_floor.c, avif_sweep.c). */
#ifndef WEBIMAGE_BENCH_FILE_H
#define WEBIMAGE_BENCH_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The whole file at `path`, malloc'd (the caller frees it), its length in *size; NULL when it
   cannot be opened or read, or is empty. */
static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); return NULL; }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* qsort order of doubles. */
__attribute__((unused)) static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Plain box average of opaque RGBA (sw x sh) into dw x dh: each output pixel averages the source
 * pixels whose index maps onto it (integer spans). Only the input of the timed encodes. */
__attribute__((unused)) static void shrink(const unsigned char *src, int sw, int sh, unsigned char *dst, int dw, int dh) {
    for (int dy = 0; dy < dh; dy++) {
        int y0 = (int)((long)dy * sh / dh), y1 = (int)((long)(dy + 1) * sh / dh);
        if (y1 <= y0) y1 = y0 + 1;
        for (int dx = 0; dx < dw; dx++) {
            int x0 = (int)((long)dx * sw / dw), x1 = (int)((long)(dx + 1) * sw / dw);
            if (x1 <= x0) x1 = x0 + 1;
            unsigned long sum[4] = {0, 0, 0, 0}, n = 0;
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++, n++)
                    for (int c = 0; c < 4; c++) sum[c] += src[((size_t)y * sw + x) * 4 + c];
            for (int c = 0; c < 4; c++) dst[((size_t)dy * dw + dx) * 4 + c] = (unsigned char)((sum[c] + n / 2) / n);
        }
    }
}

#endif
