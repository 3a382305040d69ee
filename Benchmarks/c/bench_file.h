/* Shared by the benchmark programs in this folder (decode_bench.c, encode_floor.c). */
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

#endif
