import CTIFF
import Foundation
import WebImageCore

extension TIFFCoder {
    /// `true` for ``/WebImageCore/ImageFormat/tiff``.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .tiff }

    /// Encodes the first frame as a one-page TIFF (SPEC H-1): contiguous RGB, or RGBA with
    /// unassociated alpha when some pixel is not opaque; Deflate with horizontal prediction
    /// (lossless: ``/WebImageCore/EncodeOptions/quality`` is ignored); upright, without an
    /// orientation tag; within ``/WebImageCore/EncodeOptions/maxPixelSize``.
    ///
    /// - A 16-bit (``/WebImageCore/PixelFormat/rgba16``) image is written with 16 bits a sample,
    ///   an 8-bit one with 8.
    /// - The colour description is written as an ICC profile (tag 34675): the image's own, or an
    ///   equivalent one made for a CICP or gamma description. TIFF has no way to say PQ or HLG,
    ///   so a PQ or HLG picture is tone-mapped to 8-bit SDR sRGB first, as for JPEG.
    ///
    /// - Throws: ``/WebImageCore/WebImageError/unsupportedFormat(_:reason:)`` for other formats,
    ///   ``/WebImageCore/WebImageError/encodingFailed(reason:)`` when libtiff fails.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .tiff else {
            throw WebImageError.unsupportedFormat(format, reason: "TIFFCoder encodes TIFF only")
        }
        var single = options
        single.keepAnimation = false
        var source = single.preparedImage(image, keepingHighBitDepth: true)
        if case .cicp(let cicp)? = source.colorProfile?.kind, cicp.isHDR {
            source = EightBitOutput.prepare(source)
        }
        return try Self.write(source)
    }

    /// The TIFF of `image`'s first frame, at its own depth.
    static func write(_ image: Image) throws -> Data {
        let pixels = image.pixels
        let wide = pixels.format == .rgba16
        let alpha = image.hasAlpha && !pixels.isFullyOpaque()
        let channels = alpha ? 4 : 3
        let sampleBytes = wide ? 2 : 1
        let rowBytes = pixels.width * channels * sampleBytes
        let writer = try TIFFMemoryWriter()
        try writer.set(TIFFTAG_IMAGEWIDTH, [UInt32(pixels.width)], "the width")
        try writer.set(TIFFTAG_IMAGELENGTH, [UInt32(pixels.height)], "the height")
        try writer.set(TIFFTAG_BITSPERSAMPLE, [Int32(wide ? 16 : 8)], "the bits a sample")
        try writer.set(TIFFTAG_SAMPLESPERPIXEL, [Int32(channels)], "the samples a pixel")
        try writer.set(TIFFTAG_SAMPLEFORMAT, [Int32(SAMPLEFORMAT_UINT)], "the sample format")
        try writer.set(TIFFTAG_PHOTOMETRIC, [Int32(PHOTOMETRIC_RGB)], "the photometric interpretation")
        try writer.set(TIFFTAG_PLANARCONFIG, [Int32(PLANARCONFIG_CONTIG)], "the planar configuration")
        try writer.set(TIFFTAG_COMPRESSION, [Int32(COMPRESSION_ADOBE_DEFLATE)], "the compression")
        try writer.set(TIFFTAG_PREDICTOR, [Int32(PREDICTOR_HORIZONTAL)], "the predictor")
        // Strips of about 64 KiB of raw samples.
        let rowsPerStrip = max(1, min(pixels.height, 65_536 / max(rowBytes, 1)))
        try writer.set(TIFFTAG_ROWSPERSTRIP, [UInt32(rowsPerStrip)], "the rows a strip")
        if alpha {
            let extra: [UInt16] = [UInt16(EXTRASAMPLE_UNASSALPHA)]
            try extra.withUnsafeBufferPointer { try writer.set(TIFFTAG_EXTRASAMPLES, [Int32(1), $0.baseAddress!], "the alpha sample") }
        }
        if let icc = EmbeddedProfile.iccData(for: image), !icc.isEmpty {
            let profile = [UInt8](icc)
            try profile.withUnsafeBufferPointer {
                try writer.set(TIFFTAG_ICCPROFILE, [UInt32($0.count), $0.baseAddress!], "the ICC profile")
            }
        }
        var row = [UInt8](repeating: 0, count: rowBytes)
        try pixels.bytes.withUnsafeBytes { source in
            for y in 0..<pixels.height {
                row.withUnsafeMutableBytes { out in
                    let start = y * pixels.width * 4 * sampleBytes
                    if channels == 4 {
                        out.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + rowBytes)]))
                    } else {
                        // Drop the alpha sample of every pixel.
                        let pixelBytes = 3 * sampleBytes, stride = 4 * sampleBytes
                        for x in 0..<pixels.width {
                            (out.baseAddress! + x * pixelBytes).copyMemory(
                                from: source.baseAddress! + start + x * stride, byteCount: pixelBytes)
                        }
                    }
                }
                let done = row.withUnsafeMutableBytes { TIFFWriteScanline(writer.handle, $0.baseAddress, UInt32(y), 0) }
                guard done == 1 else { throw writer.failure("writing row \(y)") }
            }
        }
        return try writer.finish()
    }
}
