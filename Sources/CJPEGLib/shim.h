#pragma once
// libjpeg-turbo's libjpeg API (libjpeg62-turbo), for the one decode TurboJPEG's API cannot
// express: a scaled decode with interblock smoothing off (JPEGReducedScanDecode.swift), and
// an encode with chosen quantisation tables (JPEGTableCompression.swift).
// libjpeg reports errors by calling `error_exit`, which must not return; Swift cannot catch a
// longjmp, so the whole decode runs in the C function below, which owns the setjmp.
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

enum {
    /// The pixels were written.
    WI_JPEG_OK = 0,
    /// libjpeg failed (a fatal error); `message` says why.
    WI_JPEG_FAILED = 1,
    /// libjpeg emitted a warning (damaged or unusual data); decoding stopped there.
    WI_JPEG_WARNING = 2,
    /// The stream does not decode as the caller planned (another output size, or a component
    /// the caller expected at DCT scaled size 1 is scaled larger).
    WI_JPEG_NOT_AS_PLANNED = 3,
};

typedef struct wi_jpeg_error_state {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    int warned;
    char message[JMSG_LENGTH_MAX];
} wi_jpeg_error_state;

static inline void wi_jpeg_error_exit(j_common_ptr cinfo) {
    wi_jpeg_error_state *state = (wi_jpeg_error_state *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, state->message);
    longjmp(state->jump, 1);
}

static inline void wi_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    wi_jpeg_error_state *state = (wi_jpeg_error_state *)cinfo->err;
    state->warned = 1;
    (*cinfo->err->format_message)(cinfo, state->message);
    longjmp(state->jump, 1);
}

static inline void wi_jpeg_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

/// Decodes the JPEG stream `data` at 1/`scale_denom` into `pixels` (`height` rows of `pitch`
/// bytes) in `color_space` (a J_COLOR_SPACE), with the settings TurboJPEG's tjDecompress2 uses
/// (accurate integer IDCT, fancy upsampling) except that interblock smoothing is off. Stops at
/// the first warning. Bit `i` of `dc_only_components` names a component whose IDCT must read
/// only its DC coefficient (DCT scaled size 1); otherwise nothing is decoded.
static inline int wi_jpeg_decode_scaled_unsmoothed(
    const unsigned char *data, unsigned long size, unsigned int scale_denom, int color_space,
    unsigned int dc_only_components, unsigned char *pixels, size_t pitch, unsigned int width,
    unsigned int height, char *message, size_t message_capacity)
{
    struct jpeg_decompress_struct cinfo;
    wi_jpeg_error_state state;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&state, 0, sizeof state);
    cinfo.err = jpeg_std_error(&state.manager);
    state.manager.error_exit = wi_jpeg_error_exit;
    state.manager.emit_message = wi_jpeg_emit_message;
    state.manager.output_message = wi_jpeg_output_message;
    if (setjmp(state.jump)) {
        if (message != NULL && message_capacity > 0) {
            strncpy(message, state.message, message_capacity - 1);
            message[message_capacity - 1] = 0;
        }
        jpeg_destroy_decompress(&cinfo);
        return state.warned ? WI_JPEG_WARNING : WI_JPEG_FAILED;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = scale_denom;
    cinfo.do_block_smoothing = FALSE;
    cinfo.out_color_space = (J_COLOR_SPACE)color_space;
    jpeg_calc_output_dimensions(&cinfo);
    int as_planned = cinfo.output_width == width && cinfo.output_height == height
        && (size_t)cinfo.output_width * (size_t)cinfo.output_components <= pitch;
    for (int ci = 0; ci < cinfo.num_components && ci < 32; ci++) {
        if ((dc_only_components & (1u << ci)) && cinfo.comp_info[ci].DCT_scaled_size != 1) as_planned = 0;
    }
    if (!as_planned) {
        jpeg_destroy_decompress(&cinfo);
        return WI_JPEG_NOT_AS_PLANNED;
    }
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * pitch;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return WI_JPEG_OK;
}

/// Encodes `height` rows of `width` RGBA pixels (alpha ignored; rows tightly packed) as a
/// JFIF JPEG with the given quantisation tables: `luma` and `chroma`, 64 steps each in natural
/// order at quality 50, scaled by libjpeg's quality curve and limited to 1…255 (baseline), with
/// the accurate integer DCT; `full_chroma` keeps chroma at full resolution (4:4:4) instead of
/// 4:2:0, and `progressive` writes libjpeg's standard progressive scans. On success `*out` holds
/// `*out_size` bytes the caller frees with `free`.
static inline int wi_jpeg_compress_tables(
    const unsigned char *pixels, unsigned int width, unsigned int height, int quality,
    const unsigned int *luma, const unsigned int *chroma,
    int full_chroma, int progressive, unsigned char **out, unsigned long *out_size,
    char *message, size_t message_capacity)
{
    struct jpeg_compress_struct cinfo;
    wi_jpeg_error_state state;
    *out = NULL;
    *out_size = 0;
    cinfo.err = jpeg_std_error(&state.manager);
    state.manager.error_exit = wi_jpeg_error_exit;
    state.manager.output_message = wi_jpeg_output_message;
    state.warned = 0;
    state.message[0] = '\0';
    if (setjmp(state.jump)) {
        snprintf(message, message_capacity, "%s", state.message);
        jpeg_destroy_compress(&cinfo);
        if (*out) { free(*out); *out = NULL; }
        *out_size = 0;
        return WI_JPEG_FAILED;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, out, out_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);
    cinfo.dct_method = JDCT_ISLOW;
    int scale = jpeg_quality_scaling(quality);
    jpeg_add_quant_table(&cinfo, 0, luma, scale, TRUE);
    jpeg_add_quant_table(&cinfo, 1, chroma, scale, TRUE);
    if (full_chroma) {
        cinfo.comp_info[0].h_samp_factor = 1;
        cinfo.comp_info[0].v_samp_factor = 1;
    }
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * width * 4);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return WI_JPEG_OK;
}
