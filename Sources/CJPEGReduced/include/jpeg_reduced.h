#ifndef WEBIMAGE_JPEG_REDUCED_H
#define WEBIMAGE_JPEG_REDUCED_H

#include <stddef.h>
#include <stdint.h>

/// What ``wi_jpeg_reduced_decode`` did. Anything but `WI_JPEG_REDUCED_OK` means the
/// pixels were not written as a whole (the buffer may hold anything) and the caller decodes
/// another way; the other values only say why, for tests and diagnostics.
enum {
    /// The pixels were written.
    WI_JPEG_REDUCED_OK = 0,
    /// Not a case this decoder handles: not a progressive Huffman 8-bit frame, arithmetic
    /// coding, a sampling or colour space it leaves to libjpeg, or an output size or format
    /// other than the one libjpeg would give.
    WI_JPEG_REDUCED_UNSUPPORTED = 1,
    /// The marker structure, a table or the scan sequence is broken, or breaks a rule libjpeg
    /// would report (fatal error or warning).
    WI_JPEG_REDUCED_MALFORMED = 2,
    /// The entropy-coded data is damaged: a bad Huffman code, a read past the end of a scan's
    /// data, a restart marker out of sequence, an out-of-range DC value.
    WI_JPEG_REDUCED_BAD_DATA = 3,
    /// The data ends before the coefficients the reduced decode reads are exact (a file that does
    /// not reach EOI, or coefficients a later scan would still refine).
    WI_JPEG_REDUCED_INCOMPLETE = 4,
    /// Over a limit: the memory budget, the scan limit, or more blocks than the data can code.
    WI_JPEG_REDUCED_LIMIT = 5,
    /// A coefficient or intermediate value lies outside the range where libjpeg-turbo's C and
    /// SIMD reduced inverse DCTs agree, so "libjpeg-turbo's pixels" are not one answer.
    WI_JPEG_REDUCED_OUT_OF_RANGE = 6,
};

/// Decodes the progressive JPEG `data` (`size` bytes) at 1/`scale_denominator` (8 or 4), with
/// the pixels libjpeg-turbo gives for the same file at that scale (accurate integer IDCT, default
/// upsampling and colour conversion, no block smoothing because every coefficient ends exact),
/// entropy-decoding only what its reduced inverse DCTs read, one block at a time.
///
/// - At 1/8: the DC scans of every component, and the AC scans only of the components
///   libjpeg-turbo decodes at DCT scaled size 2 (4:2:0 chroma); the others are decoded from their
///   DC alone and replicated.
/// - At 1/4: every scan (the 2×2 and 4×4 IDCTs read coefficients of every spectral band), only
///   for files whose components need no upsampling at that scale (grey, 4:4:4, 4:2:0 with its
///   chroma at scaled size 4), since libjpeg upsamples the others with its fancy filters.
///
/// - `accept_prefix`: `data` is a download still arriving: scans whose data has not fully arrived
///   are ignored, and the result is given once the DC of every component (and every coefficient
///   of the components scaled above size 1) is exact.
/// - `cmyk`: write CMYK (4-component files, as libjpeg's `JCS_CMYK` output: YCCK converted,
///   Adobe inversion kept) instead of RGBA (1- and 3-component files; alpha 255).
/// - `pixels`: `height` rows of `pitch` bytes; `width` × `height` must be the frame's size
///   divided by `scale_denominator`, rounded up.
/// - `memory_limit`: the most bytes this call may allocate for its own work.
///
/// Every read is bounds-checked, every size computed with overflow checks before allocating,
/// and every loop bounded by the data or the frame size; no recursion.
int wi_jpeg_reduced_decode(
    const uint8_t *data, size_t size, int scale_denominator, int accept_prefix, int cmyk,
    uint8_t *pixels, size_t pitch, uint32_t width, uint32_t height, size_t memory_limit);

#endif
