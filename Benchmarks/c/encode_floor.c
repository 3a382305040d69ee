/* The encode floor of `make bench-service` (issue #15; docs/PERFORMANCE.md "Service"): each
 * encoder library called directly on a thumbnail, with the settings swift-web-image's coders use:
 *   jpeg  TurboJPEG tjCompress2 from RGBA, quality Q, 4:2:0 below q90 (4:4:4 from q90),
 *         TJFLAG_ACCURATEDCT, baseline, a compressor handle made per encode
 *         (JPEGCompression.compress)
 *   webp  libwebp WebPConfigInit (method 4, libwebp's default) with quality Q; WebPPicture with
 *         use_argb = 1, WebPPictureImportRGBX (opaque input), WebPMemoryWriter, WebPEncode
 *         (WebPEncoding.makeConfig / encodeStill)
 *   avif  libavif: min/max quantizer (colour and alpha) = (1 - Q/100) * 63 + 0.5 truncated, less
 *         3 up to 0.1 MP and 2 up to 1.2 MP with speed 9 (speed 8, no lift above), maxThreads 1, 8-bit YUV 4:2:0 full range, avifImageRGBToYUV from RGBA with
 *         ignoreAlpha, avifEncoderWrite (AVIFEncoding.makeEncoder / yuvImage, AVIFFrameWriter,
 *         AVIFEncodeSettings' size-chosen speed)
 * The thumbnail is made once, untimed: the JPEG FILE decoded at 1/DENOM with TurboJPEG, then a
 * plain box average down to W x H. Only the encodes are timed (after one warm-up encode each).
 *
 * build: gcc -O2 -o encode_floor encode_floor.c -lturbojpeg -lwebp -lavif   (Benchmarks/run-service.sh does)
 * usage: encode_floor FILE ITERATIONS DENOM W H [jpeg:Q] [webp:Q] [avif:Q] ...
 * prints one line per encoder:
 *   <codec> q=<Q> cpu_ms=<median process CPU ms> median_ms=<median wall ms> bytes=<output size>
 *   size=<WxH>
 * and a last line `versions libwebp=<x.y.z> libavif=<x.y.z> aom=<codec versions>`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>
#include <webp/encode.h>
#include <avif/avif.h>

#include "bench_file.h"

static double clock_ms(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Each encoder returns the encoded size, or 0 on failure. */
static size_t encode_jpeg(const unsigned char *rgba, int w, int h, int q) {
    tjhandle tj = tjInitCompress();
    if (!tj) return 0;
    unsigned char *out = NULL;
    unsigned long size = 0;
    int rc = tjCompress2(tj, rgba, w, 0, h, TJPF_RGBA, &out, &size, q >= 90 ? TJSAMP_444 : TJSAMP_420, q,
                         TJFLAG_ACCURATEDCT);
    tjFree(out);
    tjDestroy(tj);
    return rc == 0 ? (size_t)size : 0;
}

static size_t encode_webp(const unsigned char *rgba, int w, int h, int q) {
    WebPConfig config;
    WebPPicture picture;
    WebPMemoryWriter writer;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) return 0;
    config.quality = (float)q;
    if (!WebPValidateConfig(&config)) return 0;
    picture.use_argb = 1;
    picture.width = w;
    picture.height = h;
    if (!WebPPictureImportRGBX(&picture, rgba, w * 4)) return 0;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    size_t size = ok ? writer.size : 0;
    WebPMemoryWriterClear(&writer);
    WebPPictureFree(&picture);
    return size;
}

static size_t encode_avif(const unsigned char *rgba, int w, int h, int q) {
    avifEncoder *encoder = avifEncoderCreate();
    if (!encoder) return 0;
    long pixels = (long)w * h;
    int small = pixels <= 1200000, lift = !small ? 0 : pixels <= 100000 ? 3 : 2;
    int quantizer = (int)((1 - q / 100.0) * 63 + 0.5) - lift;
    if (quantizer < 0) quantizer = 0;
    encoder->minQuantizer = encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = encoder->maxQuantizerAlpha = quantizer;
    encoder->speed = small ? 9 : 8;
    encoder->maxThreads = 1;
    encoder->timescale = 1000;
    avifImage *image = avifImageCreate((uint32_t)w, (uint32_t)h, 8, AVIF_PIXEL_FORMAT_YUV420);
    size_t size = 0;
    if (image) {
        image->yuvRange = AVIF_RANGE_FULL;
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, image);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.ignoreAlpha = AVIF_TRUE;
        rgb.pixels = (uint8_t *)rgba;
        rgb.rowBytes = (uint32_t)w * 4;
        avifRWData output = AVIF_DATA_EMPTY;
        if (avifImageRGBToYUV(image, &rgb) == AVIF_RESULT_OK && avifEncoderWrite(encoder, image, &output) == AVIF_RESULT_OK)
            size = output.size;
        avifRWDataFree(&output);
        avifImageDestroy(image);
    }
    avifEncoderDestroy(encoder);
    return size;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: %s FILE ITERATIONS DENOM W H jpeg:Q|webp:Q|avif:Q ...\n", argv[0]);
        return 2;
    }
    int iterations = atoi(argv[2]), denom = atoi(argv[3]), w = atoi(argv[4]), h = atoi(argv[5]);
    if (iterations < 1 || denom < 1 || w < 1 || h < 1 || w > 16383 || h > 16383) {
        fprintf(stderr, "encode_floor: bad ITERATIONS, DENOM or size\n");
        return 2;
    }
    size_t size;
    unsigned char *data = read_file(argv[1], &size);
    if (!data) { perror(argv[1]); return 1; }
    tjhandle tj = tjInitDecompress();
    int sw, sh, sub, cs;
    if (!tj || tjDecompressHeader3(tj, data, (unsigned long)size, &sw, &sh, &sub, &cs) != 0) {
        fprintf(stderr, "encode_floor: %s is not a JPEG TurboJPEG reads\n", argv[1]);
        return 1;
    }
    tjscalingfactor factor = {1, denom};
    int rw = TJSCALED(sw, factor), rh = TJSCALED(sh, factor);
    unsigned char *reduced = malloc((size_t)rw * rh * 4), *thumb = malloc((size_t)w * h * 4);
    if (!reduced || !thumb) return 1;
    if (tjDecompress2(tj, data, (unsigned long)size, reduced, rw, rw * 4, rh, TJPF_RGBA, 0) != 0) {
        fprintf(stderr, "encode_floor: decode failed: %s\n", tjGetErrorStr2(tj));
        return 1;
    }
    tjDestroy(tj);
    shrink(reduced, rw, rh, thumb, w, h);
    double *cpu = malloc(sizeof(double) * (size_t)iterations), *wall = malloc(sizeof(double) * (size_t)iterations);
    for (int a = 6; a < argc; a++) {
        char codec[8];
        int q;
        if (sscanf(argv[a], "%7[a-z]:%d", codec, &q) != 2 || q < 1 || q > 100) {
            fprintf(stderr, "encode_floor: bad encoder %s (jpeg:Q, webp:Q or avif:Q)\n", argv[a]);
            return 2;
        }
        size_t (*encode)(const unsigned char *, int, int, int) =
            strcmp(codec, "jpeg") == 0 ? encode_jpeg : strcmp(codec, "webp") == 0 ? encode_webp
            : strcmp(codec, "avif") == 0 ? encode_avif : NULL;
        if (!encode) { fprintf(stderr, "encode_floor: unknown encoder %s\n", codec); return 2; }
        size_t bytes = encode(thumb, w, h, q);  /* warm-up */
        if (bytes == 0) { fprintf(stderr, "encode_floor: %s encode failed\n", codec); return 1; }
        for (int i = 0; i < iterations; i++) {
            double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
            bytes = encode(thumb, w, h, q);
            cpu[i] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
            wall[i] = clock_ms(CLOCK_MONOTONIC) - t0;
            if (bytes == 0) { fprintf(stderr, "encode_floor: %s encode failed\n", codec); return 1; }
        }
        qsort(cpu, (size_t)iterations, sizeof(double), cmp);
        qsort(wall, (size_t)iterations, sizeof(double), cmp);
        printf("%s q=%d cpu_ms=%.3f median_ms=%.3f bytes=%zu size=%dx%d\n", codec, q, cpu[iterations / 2],
               wall[iterations / 2], bytes, w, h);
    }
    int webp = WebPGetEncoderVersion();
    char codecs[256];
    avifCodecVersions(codecs);
    printf("versions libwebp=%d.%d.%d libavif=%s codecs=%s\n", webp >> 16, (webp >> 8) & 0xff, webp & 0xff,
           avifVersion(), codecs);
    free(cpu);
    free(wall);
    free(reduced);
    free(thumb);
    free(data);
    return 0;
}
