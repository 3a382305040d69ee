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
 *   TIFF  libtiff: TIFFClientOpen over the bytes in memory (no mapping), TIFFRGBAImageBegin/Get
 *         with the stored orientation into a fresh buffer (full decode only; opaque inputs)
 *   SVG   librsvg: rsvg_handle_new_from_data, render_document with cairo into a fresh ARGB32
 *         buffer at the intrinsic size, then to straight RGBA (full decode only)
 *   PDF   poppler-glib: first page on white at its size in points, then to RGBA (full only)
 * The inputs carry no EXIF orientation that either side applies, so no rotation is timed.
 *
 * usage: decode_bench jpeg|png|webp|avif|heif|jxl|tiff|svg|pdf FILE ITERATIONS DENOM
 *        decode_bench make-tiff IN.jpg OUT.tif none|lzw|jpeg   (writes a benchmark input)
 *   DENOM 1 = full decode; 8 = thumbnail of 1/8 the width and height.
 * prints: median_ms=<wall ms> cpu_ms=<median process CPU ms> mpix=<megapixels of the source> size=<WxH out> fnv=<hash of the last
 *   output's pixels> (the Swift harness prints the same hash: equal hashes = same output)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <turbojpeg.h>
#include <spng.h>
#include <webp/decode.h>
#include <avif/avif.h>
#include <libheif/heif.h>
#include <jxl/decode.h>
#include <tiffio.h>
#include <librsvg/rsvg.h>
#include <poppler.h>
#include <cairo.h>

#include "bench_file.h"

static double clock_ms(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
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

struct memory_file { const unsigned char *data; size_t size, pos; };

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n) {
    struct memory_file *m = h;
    if (m->pos >= m->size) return 0;
    size_t count = (size_t)n < m->size - m->pos ? (size_t)n : m->size - m->pos;
    memcpy(buf, m->data + m->pos, count);
    m->pos += count;
    return (tmsize_t)count;
}
static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n) { (void)h; (void)buf; (void)n; return -1; }
static toff_t mem_seek(thandle_t h, toff_t off, int whence) {
    struct memory_file *m = h;
    size_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos : m->size;
    if (base + off > m->size) return (toff_t)-1;
    m->pos = base + off;
    return m->pos;
}
static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((struct memory_file *)h)->size; }
static int mem_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static int run_tiff(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    if (denom != 1) return -1;
    struct memory_file m = {data, size, 0};
    TIFF *tif = TIFFClientOpen("memory", "rm", &m, mem_read, mem_write, mem_seek, mem_close, mem_size, mem_map, mem_unmap);
    if (!tif) return -1;
    char emsg[1024];
    TIFFRGBAImage img;
    int rc = -1;
    if (TIFFRGBAImageOK(tif, emsg) && TIFFRGBAImageBegin(&img, tif, 1, emsg)) {
        img.req_orientation = img.orientation;
        *w = (int)img.width; *h = (int)img.height;
        uint32_t *out = malloc((size_t)img.width * img.height * 4);
        if (TIFFRGBAImageGet(&img, out, img.width, img.height)) {
            rc = 0;
            if (keeping) keep((unsigned char *)out, *w, *h);
        }
        free(out);
        TIFFRGBAImageEnd(&img);
    }
    TIFFClose(tif);
    return rc;
}

/* cairo's premultiplied native-endian ARGB32 to straight RGBA8, in place (little-endian). */
static void cairo_to_rgba(unsigned char *p, size_t count) {
    for (size_t i = 0; i < count; i += 4) {
        unsigned char b = p[i], g = p[i + 1], r = p[i + 2], a = p[i + 3];
        if (a == 0) { p[i] = p[i + 1] = p[i + 2] = 0; continue; }
        if (a < 255) {
            r = (unsigned char)((r * 255 + a / 2) / a); g = (unsigned char)((g * 255 + a / 2) / a); b = (unsigned char)((b * 255 + a / 2) / a);
        }
        p[i] = r; p[i + 1] = g; p[i + 2] = b;
    }
}

static int run_svg(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    if (denom != 1) return -1;
    RsvgHandle *handle = rsvg_handle_new_from_data(data, size, NULL);
    if (!handle) return -1;
    rsvg_handle_set_dpi(handle, 96);
    double dw = 0, dh = 0;
    int rc = -1;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(handle, &dw, &dh)) {
        gboolean has_w, has_h, has_vb;
        RsvgLength lw, lh;
        RsvgRectangle vb;
        rsvg_handle_get_intrinsic_dimensions(handle, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
        if (has_vb) { dw = vb.width; dh = vb.height; }
    }
    if (dw > 0 && dh > 0) {
        *w = (int)ceil(dw); *h = (int)ceil(dh);
        unsigned char *out = calloc((size_t)*w * *h, 4);
        cairo_surface_t *surface = cairo_image_surface_create_for_data(out, CAIRO_FORMAT_ARGB32, *w, *h, *w * 4);
        cairo_t *cr = cairo_create(surface);
        cairo_scale(cr, *w / dw, *h / dh);
        RsvgRectangle viewport = {0, 0, dw, dh};
        if (rsvg_handle_render_document(handle, cr, &viewport, NULL)) {
            cairo_surface_flush(surface);
            cairo_to_rgba(out, (size_t)*w * *h * 4);
            rc = 0;
            if (keeping) keep(out, *w, *h);
        }
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
        free(out);
    }
    g_object_unref(handle);
    return rc;
}

static int run_pdf(const unsigned char *data, size_t size, int denom, int *w, int *h) {
    if (denom != 1) return -1;
    GBytes *bytes = g_bytes_new(data, size);
    PopplerDocument *doc = poppler_document_new_from_bytes(bytes, NULL, NULL);
    g_bytes_unref(bytes);
    if (!doc) return -1;
    int rc = -1;
    PopplerPage *page = poppler_document_get_page(doc, 0);
    if (page) {
        double pw, ph;
        poppler_page_get_size(page, &pw, &ph);
        *w = (int)ceil(pw); *h = (int)ceil(ph);
        unsigned char *out = malloc((size_t)*w * *h * 4);
        memset(out, 255, (size_t)*w * *h * 4);
        cairo_surface_t *surface = cairo_image_surface_create_for_data(out, CAIRO_FORMAT_ARGB32, *w, *h, *w * 4);
        cairo_t *cr = cairo_create(surface);
        cairo_scale(cr, *w / pw, *h / ph);
        poppler_page_render(page, cr);
        cairo_surface_flush(surface);
        cairo_to_rgba(out, (size_t)*w * *h * 4);
        rc = 0;
        if (keeping) keep(out, *w, *h);
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
        free(out);
        g_object_unref(page);
    }
    g_object_unref(doc);
    return rc;
}

/* Writes IN.jpg as a TIFF (RGB, 8-bit, 16-row strips) for the benchmark. */
static int make_tiff(const char *in, const char *out, const char *compression) {
    size_t size;
    unsigned char *jpeg = read_file(in, &size);
    if (!jpeg) { perror(in); return 1; }
    tjhandle tj = tjInitDecompress();
    int w, h, sub, cs;
    if (tjDecompressHeader3(tj, jpeg, (unsigned long)size, &w, &h, &sub, &cs) != 0) return 1;
    unsigned char *rgb = malloc((size_t)w * h * 3);
    if (tjDecompress2(tj, jpeg, (unsigned long)size, rgb, w, 0, h, TJPF_RGB, 0) != 0) return 1;
    TIFF *tif = TIFFOpen(out, "w");
    if (!tif) return 1;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)w);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)h);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 16);
    if (strcmp(compression, "jpeg") == 0) {
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_JPEG);
        TIFFSetField(tif, TIFFTAG_JPEGQUALITY, 90);
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    } else {
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, strcmp(compression, "lzw") == 0 ? COMPRESSION_LZW : COMPRESSION_NONE);
    }
    for (int y = 0; y < h; y++) {
        if (TIFFWriteScanline(tif, rgb + (size_t)y * w * 3, (uint32_t)y, 0) < 0) return 1;
    }
    TIFFClose(tif);
    free(rgb);
    free(jpeg);
    tjDestroy(tj);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "make-tiff") == 0) return make_tiff(argv[2], argv[3], argv[4]);
    if (argc < 5) { fprintf(stderr, "usage: %s jpeg|png|webp|avif|heif|jxl|tiff|svg|pdf FILE ITERATIONS DENOM\n", argv[0]); return 2; }
    size_t size;
    unsigned char *data = read_file(argv[2], &size);
    if (!data) { perror(argv[2]); return 1; }
    int iterations = atoi(argv[3]), denom = atoi(argv[4]);
    int (*run)(const unsigned char *, size_t, int, int *, int *) =
        strcmp(argv[1], "jpeg") == 0 ? run_jpeg : strcmp(argv[1], "png") == 0 ? run_png :
        strcmp(argv[1], "avif") == 0 ? run_avif : strcmp(argv[1], "heif") == 0 ? run_heif :
        strcmp(argv[1], "jxl") == 0 ? run_jxl : strcmp(argv[1], "tiff") == 0 ? run_tiff :
        strcmp(argv[1], "svg") == 0 ? run_svg : strcmp(argv[1], "pdf") == 0 ? run_pdf : run_webp;
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
