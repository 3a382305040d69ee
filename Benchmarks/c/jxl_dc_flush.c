/* What libjxl (0.7) can give a JPEG XL thumbnail of at most 1/8 (SPEC C-4a): the CPU time of a
 * full decode against stopping at the first JXL_DEC_FRAME_PROGRESSION event (kDC, "the 8x8th
 * resolution image is ready") and JxlDecoderFlushImage. The DC variant is fed the file in
 * sixteenths, as a download would arrive, so libjxl cannot decode past the DC before the event.
 * Both use libjxl as JXLCoder does: no parallel runner, RGBA8 into a fresh buffer.
 *
 * usage: jxl_dc_flush encode IN.ppm OUT.jxl EFFORT     (writes the input: distance 1, sRGB)
 *        jxl_dc_flush full|dc FILE.jxl RUNS
 * prints: <mode> cpu_ms=<median> size=<WxH of the buffer libjxl fills> ratio=<intended downsampling>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jxl/decode.h>
#include <jxl/encode.h>

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*size);
    if (fread(bytes, 1, *size, f) != *size) { perror(path); exit(1); }
    fclose(f);
    return bytes;
}

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int encode(const char *in, const char *out, int effort) {
    size_t size;
    unsigned char *ppm = read_file(in, &size);
    int width, height, maxval, offset;
    if (sscanf((const char *)ppm, "P6 %d %d %d%n", &width, &height, &maxval, &offset) != 3 || maxval != 255) return 1;
    offset += 1;
    JxlEncoder *encoder = JxlEncoderCreate(NULL);
    JxlBasicInfo info;
    JxlEncoderInitBasicInfo(&info);
    info.xsize = (uint32_t)width;
    info.ysize = (uint32_t)height;
    info.bits_per_sample = 8;
    info.num_color_channels = 3;
    info.uses_original_profile = JXL_FALSE;
    JxlColorEncoding srgb;
    JxlColorEncodingSetToSRGB(&srgb, JXL_FALSE);
    if (JxlEncoderSetBasicInfo(encoder, &info) != JXL_ENC_SUCCESS || JxlEncoderSetColorEncoding(encoder, &srgb) != JXL_ENC_SUCCESS) return 1;
    JxlEncoderFrameSettings *settings = JxlEncoderFrameSettingsCreate(encoder, NULL);
    JxlEncoderSetFrameDistance(settings, 1.0f);
    JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort);
    JxlPixelFormat format = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    if (JxlEncoderAddImageFrame(settings, &format, ppm + offset, (size_t)width * height * 3) != JXL_ENC_SUCCESS) return 1;
    JxlEncoderCloseInput(encoder);
    size_t capacity = size + 4096, available = capacity;
    unsigned char *output = malloc(capacity), *next = output;
    if (JxlEncoderProcessOutput(encoder, &next, &available) != JXL_ENC_SUCCESS) return 1;
    FILE *f = fopen(out, "wb");
    fwrite(output, 1, (size_t)(next - output), f);
    fclose(f);
    JxlEncoderDestroy(encoder);
    return 0;
}

/* One decode; returns CPU seconds. */
static double decode(const unsigned char *bytes, size_t size, int dc, char *summary, size_t summary_size) {
    double start = cpu_seconds();
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE | (dc ? JXL_DEC_FRAME_PROGRESSION : 0));
    if (dc) JxlDecoderSetProgressiveDetail(decoder, kDC);
    size_t step = dc ? size / 16 + 1 : size, given = step < size ? step : size;
    JxlDecoderSetInput(decoder, bytes, given);
    if (given == size) JxlDecoderCloseInput(decoder);
    JxlBasicInfo info = {0};
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    unsigned char *pixels = NULL;
    size_t ratio = 1;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlDecoderGetBasicInfo(decoder, &info);
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed;
            JxlDecoderImageOutBufferSize(decoder, &format, &needed);
            pixels = malloc(needed);
            JxlDecoderSetImageOutBuffer(decoder, &format, pixels, needed);
        } else if (status == JXL_DEC_NEED_MORE_INPUT) {
            size_t unused = JxlDecoderReleaseInput(decoder), used = given - unused;
            given = given + step < size ? given + step : size;
            JxlDecoderSetInput(decoder, bytes + used, given - used);
            if (given == size) JxlDecoderCloseInput(decoder);
        } else if (status == JXL_DEC_FRAME_PROGRESSION) {
            ratio = JxlDecoderGetIntendedDownsamplingRatio(decoder);
            if (JxlDecoderFlushImage(decoder) != JXL_DEC_SUCCESS) { fprintf(stderr, "flush failed\n"); exit(1); }
            break;
        } else if (status == JXL_DEC_FULL_IMAGE || status == JXL_DEC_SUCCESS) {
            break;
        } else {
            fprintf(stderr, "libjxl status %d\n", (int)status);
            exit(1);
        }
    }
    JxlDecoderDestroy(decoder);
    free(pixels);
    snprintf(summary, summary_size, "size=%ux%u ratio=%zu", info.xsize, info.ysize, ratio);
    return cpu_seconds() - start;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[1], "encode")) return encode(argv[2], argv[3], atoi(argv[4]));
    if (argc != 4 || (strcmp(argv[1], "full") && strcmp(argv[1], "dc"))) {
        fprintf(stderr, "usage: jxl_dc_flush encode IN.ppm OUT.jxl EFFORT | full|dc FILE.jxl RUNS\n");
        return 2;
    }
    size_t size;
    unsigned char *bytes = read_file(argv[2], &size);
    int runs = atoi(argv[3]);
    if (runs < 1) runs = 1;
    double *times = malloc(sizeof(double) * (size_t)runs);
    char summary[128] = "";
    for (int i = 0; i < runs; i++) times[i] = decode(bytes, size, !strcmp(argv[1], "dc"), summary, sizeof summary);
    qsort(times, (size_t)runs, sizeof(double), compare);
    printf("%s cpu_ms=%.1f %s\n", argv[1], times[runs / 2] * 1000, summary);
    return 0;
}
