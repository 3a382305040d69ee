/* The floor: each codec library called directly, doing the same work as swift-web-image's
 * coders with default options (decode into a freshly allocated RGBA8 buffer; thumbnails by the
 * library's own shrink-on-load where it has one, else full decode + the same alpha-weighted
 * box average as PixelBuffer.downscaled(to:)). The same library settings as the coders:
 *   JPEG  TJFLAG_LIMITSCANS | TJFLAG_STOPONWARNING (JPEGDecompression.baseFlags + stop on warning)
 *   PNG   CRC action error/discard, image limits, chunk limits 8 MiB, SPNG_DECODE_TRNS, and
 *         spng_decode_chunks() after the image (reads the tail, checks the last IDAT CRC)
 *   WebP  WebPDecode into external RGBA memory, use_scaling for thumbnails
 *   AVIF  libavif: one thread, strict flags off, EXIF/XMP ignored, first image, avifImageYUVToRGB
 *         to RGBA8 (full decode only: AV1 has no scaled decode)
 *   HEIF  libheif: no decoding threads (set_max_decoding_threads 0), primary image, interleaved RGBA with convert_hdr_to_8bit, rows copied into
 *         a fresh buffer, alpha set to 255 when the image has none (full decode only)
 *   JXL   libjxl: no parallel runner, keep orientation, unpremultiplied alpha, RGBA8 into a
 *         fresh buffer (full decode only)
 * The inputs carry no EXIF orientation that either side applies, so no rotation is timed.
 *
 * usage: decode_bench jpeg|png|webp|avif|heif|jxl FILE ITERATIONS DENOM
 *   DENOM 1 = full decode; 8 = thumbnail of 1/8 the width and height.
 * prints: median_ms=<wall ms> cpu_ms=<median process CPU ms> mpix=<megapixels of the source> size=<WxH out> fnv=<hash of the last
 *   output's pixels> (the Swift harness prints the same hash: equal hashes = same output)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>
#include <spng.h>
#include <webp/decode.h>
#include <avif/avif.h>
#include <libheif/heif.h>
#include <jxl/decode.h>

static double clock_ms(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
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

/* The last decode's output, kept (outside the timing) for the hash. */
static unsigned char *last_out;
static size_t last_size;
static int last_w, last_h;

__attribute__((noinline)) static void keep(const unsigned char *pixels, int w, int h) {
    size_t n = (size_t)w * h * 4;
    if (n != last_size) { free(last_out); last_out = malloc(n); last_size = n; }
    memcpy(last_out, pixels, n);
    last_w = w; last_h = h;
}
static int keeping; /* set for the last iteration only */

/* FNV-1a over the bytes (64-bit). */
static unsigned long long fnv(const unsigned char *p, size_t n) {
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
    return h;
}

/* Box average of an RGBA8 image down to dw x dh (integer spans), alpha-weighted, with the
 * rounding of PixelBuffer.downscaled(to:): colour = (sum(c*a) + A/2) / A, alpha = (A + n/2) / n,
 * all zero where A = 0. */
static void box_down(const unsigned char *src, int sw, int sh, unsigned char *dst, int dw, int dh) {
    for (int dy = 0; dy < dh; dy++) {
        int y0 = dy * sh / dh, y1 = (dy + 1) * sh / dh; if (y1 <= y0) y1 = y0 + 1;
        for (int dx = 0; dx < dw; dx++) {
            int x0 = dx * sw / dw, x1 = (dx + 1) * sw / dw; if (x1 <= x0) x1 = x0 + 1;
            unsigned long long r = 0, g = 0, b = 0, a = 0, n = 0;
            for (int y = y0; y < y1; y++) {
                const unsigned char *p = src + ((size_t)y * sw + x0) * 4;
                for (int x = x0; x < x1; x++, p += 4) {
                    unsigned long long al = p[3];
                    r += p[0] * al; g += p[1] * al; b += p[2] * al; a += al;
                }
                n += (unsigned long long)(x1 - x0);
            }
            unsigned char *o = dst + ((size_t)dy * dw + dx) * 4;
            if (a == 0) { o[0] = o[1] = o[2] = o[3] = 0; continue; }
            o[0] = (unsigned char)((r + a / 2) / a);
            o[1] = (unsigned char)((g + a / 2) / a);
            o[2] = (unsigned char)((b + a / 2) / a);
            o[3] = (unsigned char)((a + n / 2) / n);
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
    int rc = tjDecompress2(tj, data, size, out, ow, ow * 4, oh, TJPF_RGBA, TJFLAG_LIMITSCANS | TJFLAG_STOPONWARNING);
    if (keeping) keep(out, ow, oh);
    free(out);
    tjDestroy(tj);
    return rc;
}

static int run_png(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    spng_ctx *ctx = spng_ctx_new(0);
    spng_set_crc_action(ctx, SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
    spng_set_image_limits(ctx, 89478485, 89478485);
    spng_set_chunk_limits(ctx, 8 << 20, 8 << 20);
    spng_set_png_buffer(ctx, data, size);
    struct spng_ihdr ihdr;
    if (spng_get_ihdr(ctx, &ihdr)) { spng_ctx_free(ctx); return -1; }
    *w = (int)ihdr.width; *h = (int)ihdr.height;
    size_t n;
    spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &n);
    unsigned char *out = malloc(n);
    int rc = spng_decode_image(ctx, out, n, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    if (rc == 0 && spng_decode_chunks(ctx) == SPNG_ECHUNK_CRC) rc = -1;
    if (denom > 1 && rc == 0) {
        int dw = *w / denom, dh = *h / denom;
        unsigned char *small = malloc((size_t)dw * dh * 4);
        box_down(out, *w, *h, small, dw, dh);
        if (keeping) keep(small, dw, dh);
        free(small);
    } else if (keeping) {
        keep(out, *w, *h);
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
    if (keeping) keep(out, ow, oh);
    WebPFreeDecBuffer(&config.output);
    free(out);
    return rc;
}

static int run_avif(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    if (denom != 1) return -1;
    avifDecoder *decoder = avifDecoderCreate();
    decoder->maxThreads = 1;
    decoder->strictFlags = AVIF_STRICT_DISABLED;
    decoder->ignoreExif = AVIF_TRUE;
    decoder->ignoreXMP = AVIF_TRUE;
    int rc = -1;
    if (avifDecoderSetIOMemory(decoder, data, size) == AVIF_RESULT_OK && avifDecoderParse(decoder) == AVIF_RESULT_OK &&
        avifDecoderNextImage(decoder) == AVIF_RESULT_OK) {
        *w = (int)decoder->image->width; *h = (int)decoder->image->height;
        unsigned char *out = malloc((size_t)*w * *h * 4);
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, decoder->image);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.pixels = out;
        rgb.rowBytes = (uint32_t)*w * 4;
        rc = avifImageYUVToRGB(decoder->image, &rgb) == AVIF_RESULT_OK ? 0 : -1;
        if (keeping) keep(out, *w, *h);
        free(out);
    }
    avifDecoderDestroy(decoder);
    return rc;
}

static int run_heif(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    if (denom != 1) return -1;
    struct heif_context *ctx = heif_context_alloc();
    heif_context_set_max_decoding_threads(ctx, 0);
    struct heif_image_handle *handle = NULL;
    struct heif_image *img = NULL;
    int rc = -1;
    if (heif_context_read_from_memory_without_copy(ctx, data, size, NULL).code == heif_error_Ok &&
        heif_context_get_primary_image_handle(ctx, &handle).code == heif_error_Ok) {
        struct heif_decoding_options *options = heif_decoding_options_alloc();
        options->convert_hdr_to_8bit = 1;
        if (heif_decode_image(handle, &img, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options).code == heif_error_Ok) {
            int stride = 0;
            const uint8_t *plane = heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride);
            *w = heif_image_get_width(img, heif_channel_interleaved);
            *h = heif_image_get_height(img, heif_channel_interleaved);
            int opaque = !heif_image_handle_has_alpha_channel(handle);
            size_t row = (size_t)*w * 4;
            unsigned char *out = malloc(row * *h);
            for (int y = 0; y < *h; y++) {
                unsigned char *target = out + row * y;
                memcpy(target, plane + (size_t)stride * y, row);
                if (opaque) for (size_t a = 3; a < row; a += 4) target[a] = 255;
            }
            rc = 0;
            if (keeping) keep(out, *w, *h);
            free(out);
            heif_image_release(img);
        }
        heif_decoding_options_free(options);
        heif_image_handle_release(handle);
    }
    heif_context_free(ctx);
    return rc;
}

static int run_jxl(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    if (denom != 1) return -1;
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE);
    JxlDecoderSetKeepOrientation(dec, JXL_TRUE);
    JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE);
    JxlDecoderSetInput(dec, data, size);
    JxlDecoderCloseInput(dec);
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    JxlBasicInfo info;
    unsigned char *out = NULL;
    int rc = -1;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(dec);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlDecoderGetBasicInfo(dec, &info);
            *w = (int)info.xsize; *h = (int)info.ysize;
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            JxlDecoderImageOutBufferSize(dec, &format, &needed);
            out = malloc(needed);
            JxlDecoderSetImageOutBuffer(dec, &format, out, needed);
        } else if (status == JXL_DEC_FULL_IMAGE) {
            rc = 0;
            if (keeping) keep(out, *w, *h);
            break;  /* the first frame, as a still image */
        } else {
            break;
        }
    }
    free(out);
    JxlDecoderDestroy(dec);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s jpeg|png|webp|avif|heif|jxl FILE ITERATIONS DENOM\n", argv[0]); return 2; }
    size_t size;
    unsigned char *data = read_file(argv[2], &size);
    if (!data) { perror(argv[2]); return 1; }
    int iterations = atoi(argv[3]), denom = atoi(argv[4]);
    int (*run)(const unsigned char *, size_t, int, int *, int *) =
        strcmp(argv[1], "jpeg") == 0 ? run_jpeg : strcmp(argv[1], "png") == 0 ? run_png :
        strcmp(argv[1], "avif") == 0 ? run_avif : strcmp(argv[1], "heif") == 0 ? run_heif :
        strcmp(argv[1], "jxl") == 0 ? run_jxl : run_webp;
    int w = 0, h = 0;
    if (run(data, size, denom, &w, &h) != 0) { fprintf(stderr, "decode failed\n"); return 1; }  /* warm-up */
    double *times = malloc(sizeof(double) * (size_t)iterations);
    double *cpu = malloc(sizeof(double) * (size_t)iterations);
    for (int i = 0; i < iterations; i++) {
        double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        if (run(data, size, denom, &w, &h) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
        cpu[i] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        times[i] = clock_ms(CLOCK_MONOTONIC) - t0;
    }
    keeping = 1;  /* one more, untimed, to hash the output */
    run(data, size, denom, &w, &h);
    qsort(times, (size_t)iterations, sizeof(double), cmp);
    qsort(cpu, (size_t)iterations, sizeof(double), cmp);
    printf("median_ms=%.3f cpu_ms=%.3f mpix=%.3f size=%dx%d fnv=%016llx\n", times[iterations / 2],
           cpu[iterations / 2], (double)w * h / 1e6, last_w, last_h, fnv(last_out, last_size));
    free(times);
    free(cpu);
    free(data);
    return 0;
}
