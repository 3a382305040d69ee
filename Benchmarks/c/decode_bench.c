/* The floor: each codec library called directly, doing the same work as swift-web-image's
 * coders (decode into a freshly allocated RGBA8 buffer; thumbnails by the library's own
 * shrink-on-load where it has one, else full decode + box average).
 *
 * usage: decode_bench jpeg|png|webp FILE ITERATIONS DENOM
 *   DENOM 1 = full decode; 8 = thumbnail of 1/8 the width and height.
 * prints: median_ms=<ms> mpix=<megapixels of the source>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>
#include <spng.h>
#include <webp/decode.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); return NULL; }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Box average of an RGBA8 image down to dw x dh (integer spans). */
static void box_down(const unsigned char *src, int sw, int sh, unsigned char *dst, int dw, int dh) {
    for (int dy = 0; dy < dh; dy++) {
        int y0 = dy * sh / dh, y1 = (dy + 1) * sh / dh; if (y1 <= y0) y1 = y0 + 1;
        for (int dx = 0; dx < dw; dx++) {
            int x0 = dx * sw / dw, x1 = (dx + 1) * sw / dw; if (x1 <= x0) x1 = x0 + 1;
            unsigned long acc[4] = {0, 0, 0, 0}, n = 0;
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++) {
                    const unsigned char *p = src + ((size_t)y * sw + x) * 4;
                    acc[0] += p[0]; acc[1] += p[1]; acc[2] += p[2]; acc[3] += p[3]; n++;
                }
            unsigned char *o = dst + ((size_t)dy * dw + dx) * 4;
            for (int c = 0; c < 4; c++) o[c] = (unsigned char)(acc[c] / n);
        }
    }
}

static int run_jpeg(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    tjhandle tj = tjInitDecompress();
    int sub, cs;
    if (tjDecompressHeader3(tj, data, size, w, h, &sub, &cs) != 0) return -1;
    int ow = TJSCALED(*w, ((tjscalingfactor){1, denom}));
    int oh = TJSCALED(*h, ((tjscalingfactor){1, denom}));
    unsigned char *out = malloc((size_t)ow * oh * 4);
    int rc = tjDecompress2(tj, data, size, out, ow, 0, oh, TJPF_RGBA, 0);
    free(out);
    tjDestroy(tj);
    return rc;
}

static int run_png(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    spng_ctx *ctx = spng_ctx_new(0);
    spng_set_png_buffer(ctx, data, size);
    struct spng_ihdr ihdr;
    if (spng_get_ihdr(ctx, &ihdr)) { spng_ctx_free(ctx); return -1; }
    *w = (int)ihdr.width; *h = (int)ihdr.height;
    size_t n;
    spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &n);
    unsigned char *out = malloc(n);
    int rc = spng_decode_image(ctx, out, n, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    if (denom > 1 && rc == 0) {
        int dw = *w / denom, dh = *h / denom;
        unsigned char *small = malloc((size_t)dw * dh * 4);
        box_down(out, *w, *h, small, dw, dh);
        free(small);
    }
    free(out);
    spng_ctx_free(ctx);
    return rc;
}

static int run_webp(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return -1;
    if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) return -1;
    *w = config.input.width; *h = config.input.height;
    int ow = *w, oh = *h;
    if (denom > 1) {
        ow = *w / denom; oh = *h / denom;
        config.options.use_scaling = 1;
        config.options.scaled_width = ow;
        config.options.scaled_height = oh;
    }
    unsigned char *out = malloc((size_t)ow * oh * 4);
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = ow * 4;
    config.output.u.RGBA.size = (size_t)ow * oh * 4;
    int rc = WebPDecode(data, size, &config) == VP8_STATUS_OK ? 0 : -1;
    WebPFreeDecBuffer(&config.output);
    free(out);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s jpeg|png|webp FILE ITERATIONS DENOM\n", argv[0]); return 2; }
    size_t size;
    unsigned char *data = read_file(argv[2], &size);
    if (!data) { perror(argv[2]); return 1; }
    int iterations = atoi(argv[3]), denom = atoi(argv[4]);
    int (*run)(const unsigned char *, size_t, int, int *, int *) =
        strcmp(argv[1], "jpeg") == 0 ? run_jpeg : strcmp(argv[1], "png") == 0 ? run_png : run_webp;
    int w = 0, h = 0;
    if (run(data, size, denom, &w, &h) != 0) { fprintf(stderr, "decode failed\n"); return 1; }  /* warm-up */
    double *times = malloc(sizeof(double) * (size_t)iterations);
    for (int i = 0; i < iterations; i++) {
        double t0 = now_ms();
        run(data, size, denom, &w, &h);
        times[i] = now_ms() - t0;
    }
    qsort(times, (size_t)iterations, sizeof(double), cmp);
    printf("median_ms=%.3f mpix=%.3f\n", times[iterations / 2], (double)w * h / 1e6);
    free(times);
    free(data);
    return 0;
}
