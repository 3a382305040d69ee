/* The AVIF encoder sweep of `make bench-avif` (docs/PERFORMANCE.md "AVIF encoder"): every AV1
 * encoder libavif links (aom, rav1e, svt) at a speed, a chroma subsampling, an aom tune and a
 * quality, on the same thumbnail, the way AVIFEncoding does it (8-bit full-range YUV from RGBA
 * through avifImageRGBToYUV, min = max quantizer = (1 - Q/100) * 63 + 0.5, one thread).
 * The thumbnail is made once, untimed: the JPEG FILE decoded at 1/DENOM with TurboJPEG, then a
 * box average down to a longest side of SIDE. It is written losslessly to OUTDIR/reference.avif
 * (4:4:4, identity matrix: exact), and each setting's file to OUTDIR/<setting>.avif, so that
 * `webimage compare` can score them (Benchmarks/python/avif_sweep.py does).
 *
 * build: gcc -O2 -o avif_sweep avif_sweep.c -lturbojpeg -lavif
 * usage: avif_sweep FILE DENOM SIDE ITERATIONS OUTDIR SETTING...
 *   SETTING = codec:speed:subsampling:Q[:options]   e.g. aom:8:420:63  rav1e:10:420:60  aom:9:444:55:ssim
 *   options: an aom tune, or key=value codec options separated by commas (aom:9:420:63:deltaq-mode=0)
 * prints one line per setting:
 *   <setting> cpu_ms=<median process CPU ms of one encode> bytes=<size> size=<WxH>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>
#include <avif/avif.h>

#include "bench_file.h"

static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct setting {
    avifCodecChoice codec;
    int speed, q, lossless;
    avifPixelFormat format;
    const char *tune;
};

/* One encode; returns its size (0 on failure) and keeps the bytes in *out when out != NULL. */
static size_t encode(const unsigned char *rgba, int w, int h, const struct setting *s, avifRWData *out) {
    avifEncoder *encoder = avifEncoderCreate();
    if (!encoder) return 0;
    int quantizer = s->lossless ? AVIF_QUANTIZER_LOSSLESS : (int)((1 - s->q / 100.0) * 63 + 0.5);
    encoder->codecChoice = s->codec;
    encoder->minQuantizer = encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = encoder->maxQuantizerAlpha = quantizer;
    encoder->speed = s->speed;
    encoder->maxThreads = 1;
    encoder->timescale = 1000;
    if (s->tune) {  /* "tune" alone, or key=value pairs separated by commas */
        char options[128];
        snprintf(options, sizeof options, "%s", s->tune);
        for (char *save = NULL, *pair = strtok_r(options, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(pair, '=');
            if (eq) { *eq = 0; avifEncoderSetCodecSpecificOption(encoder, pair, eq + 1); }
            else avifEncoderSetCodecSpecificOption(encoder, "tune", pair);
        }
    }
    avifImage *image = avifImageCreate((uint32_t)w, (uint32_t)h, 8, s->format);
    size_t size = 0;
    if (image) {
        image->yuvRange = AVIF_RANGE_FULL;
        if (s->lossless) image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_IDENTITY;
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, image);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.ignoreAlpha = AVIF_TRUE;
        rgb.pixels = (uint8_t *)rgba;
        rgb.rowBytes = (uint32_t)w * 4;
        avifRWData output = AVIF_DATA_EMPTY;
        avifResult r = avifImageRGBToYUV(image, &rgb);
        if (r == AVIF_RESULT_OK) r = avifEncoderWrite(encoder, image, &output);
        if (r == AVIF_RESULT_OK) size = output.size;
        else fprintf(stderr, "avif_sweep: %s\n", avifResultToString(r));
        if (out && size) *out = output;
        else avifRWDataFree(&output);
        avifImageDestroy(image);
    }
    avifEncoderDestroy(encoder);
    return size;
}

static int parse(const char *text, struct setting *s) {
    char codec[16], sub[8], tune[128] = "";
    int n = sscanf(text, "%15[a-z0-9]:%d:%7[0-9]:%d:%127s", codec, &s->speed, sub, &s->q, tune);
    if (n < 4) return 0;
    s->codec = strcmp(codec, "aom") == 0 ? AVIF_CODEC_CHOICE_AOM : strcmp(codec, "rav1e") == 0 ? AVIF_CODEC_CHOICE_RAV1E
             : strcmp(codec, "svt") == 0 ? AVIF_CODEC_CHOICE_SVT : AVIF_CODEC_CHOICE_AUTO;
    if (s->codec == AVIF_CODEC_CHOICE_AUTO) return 0;
    s->format = strcmp(sub, "444") == 0 ? AVIF_PIXEL_FORMAT_YUV444 : strcmp(sub, "422") == 0 ? AVIF_PIXEL_FORMAT_YUV422
              : AVIF_PIXEL_FORMAT_YUV420;
    s->tune = n == 5 && tune[0] ? strdup(tune) : NULL;
    s->lossless = 0;
    return s->q >= 0 && s->q <= 100;
}

static int write_file(const char *path, const avifRWData *data) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(data->data, 1, data->size, f) == data->size;
    return fclose(f) == 0 && ok;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: %s FILE DENOM SIDE ITERATIONS OUTDIR codec:speed:sub:Q[:tune]...\n", argv[0]);
        return 2;
    }
    int denom = atoi(argv[2]), side = atoi(argv[3]), iterations = atoi(argv[4]);
    const char *outdir = argv[5];
    if (denom < 1 || side < 16 || side > 8192 || iterations < 1) { fprintf(stderr, "avif_sweep: bad numbers\n"); return 2; }
    size_t size;
    unsigned char *data = read_file(argv[1], &size);
    if (!data) { perror(argv[1]); return 1; }
    tjhandle tj = tjInitDecompress();
    int sw, sh, sub, cs;
    if (!tj || tjDecompressHeader3(tj, data, (unsigned long)size, &sw, &sh, &sub, &cs) != 0) {
        fprintf(stderr, "avif_sweep: %s is not a JPEG TurboJPEG reads\n", argv[1]);
        return 1;
    }
    tjscalingfactor factor = {1, denom};
    int rw = TJSCALED(sw, factor), rh = TJSCALED(sh, factor);
    int w = rw >= rh ? side : (int)((long)side * rw / rh), h = rw >= rh ? (int)((long)side * rh / rw) : side;
    if (w > rw || h > rh) { fprintf(stderr, "avif_sweep: SIDE is larger than the reduced decode\n"); return 2; }
    unsigned char *reduced = malloc((size_t)rw * rh * 4), *thumb = malloc((size_t)w * h * 4);
    if (!reduced || !thumb) return 1;
    if (tjDecompress2(tj, data, (unsigned long)size, reduced, rw, rw * 4, rh, TJPF_RGBA, 0) != 0) {
        fprintf(stderr, "avif_sweep: decode failed: %s\n", tjGetErrorStr2(tj));
        return 1;
    }
    tjDestroy(tj);
    shrink(reduced, rw, rh, thumb, w, h);
    char path[4096];
    struct setting reference = {AVIF_CODEC_CHOICE_AOM, 9, 100, 1, AVIF_PIXEL_FORMAT_YUV444, NULL};
    avifRWData bytes = AVIF_DATA_EMPTY;
    snprintf(path, sizeof path, "%s/reference.avif", outdir);
    if (!encode(thumb, w, h, &reference, &bytes) || !write_file(path, &bytes)) {
        fprintf(stderr, "avif_sweep: could not write %s\n", path);
        return 1;
    }
    avifRWDataFree(&bytes);
    double *cpu = malloc(sizeof(double) * (size_t)iterations);
    for (int a = 6; a < argc; a++) {
        struct setting s;
        if (!parse(argv[a], &s)) { fprintf(stderr, "avif_sweep: bad setting %s\n", argv[a]); return 2; }
        avifRWData out = AVIF_DATA_EMPTY;
        size_t n = encode(thumb, w, h, &s, &out);  /* warm-up, and the file to score */
        if (!n) { printf("%s failed\n", argv[a]); fflush(stdout); continue; }
        snprintf(path, sizeof path, "%s/%s.avif", outdir, argv[a]);
        for (char *p = path + strlen(outdir) + 1; *p; p++) if (*p == ':') *p = '_';
        if (!write_file(path, &out)) { fprintf(stderr, "avif_sweep: could not write %s\n", path); return 1; }
        avifRWDataFree(&out);
        for (int i = 0; i < iterations; i++) {
            double c0 = cpu_ms();
            encode(thumb, w, h, &s, NULL);
            cpu[i] = cpu_ms() - c0;
        }
        qsort(cpu, (size_t)iterations, sizeof(double), cmp);
        printf("%s cpu_ms=%.3f bytes=%zu size=%dx%d\n", argv[a], cpu[iterations / 2], n, w, h);
        fflush(stdout);
    }
    char codecs[256];
    avifCodecVersions(codecs);
    printf("versions libavif=%s codecs=%s\n", avifVersion(), codecs);
    free(cpu);
    free(reduced);
    free(thumb);
    free(data);
    return 0;
}
