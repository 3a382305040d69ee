#pragma once
// libjpeg-turbo's libjpeg API (libjpeg62-turbo), for the one decode TurboJPEG's API cannot
// express: a scaled decode with interblock smoothing off (JPEGReducedScanDecode.swift).
// libjpeg reports errors by calling `error_exit`, which must not return; Swift cannot catch a
// longjmp, so the whole decode runs in the C function below, which owns the setjmp.
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
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
