import Foundation
import WebImageCore

/// The JPEG coder (SPEC C-3), over libjpeg-turbo's TurboJPEG API.
///
/// **Decoding** handles baseline, extended and progressive JPEG, Huffman or arithmetic coded,
/// grayscale, YCbCr, RGB, CMYK and YCCK (converted to RGB; Adobe files store CMYK inverted),
/// into RGBA8 (opaque). 12-bit and lossless/hierarchical files throw
/// ``/WebImageCore/WebImageError/unsupportedFormat(_:reason:)``; truncated or corrupt data throws
/// ``/WebImageCore/WebImageError/badImageData(reason:)`` (which libjpeg warnings are
/// tolerated is documented in `JPEGWarning.swift`). Bytes after the EOI marker are ignored.
///
/// - EXIF orientation is applied by default (the result's orientation is `.up`); with
///   ``/WebImageCore/DecodeOptions/applyOrientation`` off, pixels are as stored and the tag is reported.
/// - Thumbnails (``/WebImageCore/DecodeOptions/targetSize(for:)``, computed on the displayed size) decode at
///   the smallest DCT scale (1/8 … 1) that still covers the target, then box-filter to the
///   exact size — a 1/8 thumbnail never materialises the full-size pixels.
/// - ``decode(_:scaleDenominator:options:)`` decodes at exactly 1/2, 1/4 or 1/8 and leaves the
///   resampling to the caller (shrink on load, as the image service does before its one resample).
/// - A progressive file decoded at 1/8 (either way) reads only the scans that scale needs — its
///   DC scans, and all scans of 4:2:0 chroma — skipping the AC scans by marker search, with the
///   same pixels as the full 1/8 decode; a file that is not a clean progression decodes normally.
/// - ``/WebImageCore/DecodeOptions/limits`` are checked on the declared size before pixels are allocated.
///
/// **Encoding** writes baseline JPEG from the first frame, orientation applied. JPEG has no
/// alpha: the alpha channel is ignored (colour channels written as they are, composited over
/// nothing). Quality 0…1 maps to libjpeg's 1…100; chroma is subsampled 4:2:0 below quality 0.9
/// and kept 4:4:4 at 0.9 and above. ``/WebImageCore/EncodeOptions/maxPixelSize`` shrinks first (aspect kept);
/// ``/WebImageCore/EncodeOptions/maxFileSize`` follows ``/WebImageCore/FileSizeSearch``.
///
/// **Gain maps** (SPEC H-2, H-3): a decode reads an Ultra HDR / ISO 21496-1 gain map into
/// ``/WebImageCore/Image/gainMap`` (`JPEGGainMapReader`) unless
/// ``/WebImageCore/DecodeOptions/decodesGainMap`` is off; an encode writes an image's map back
/// with both metadata forms and an MPF index (`JPEGGainMapWriter`) unless
/// ``/WebImageCore/EncodeOptions/keepsGainMap`` is off or a ``/WebImageCore/EncodeOptions/maxFileSize``
/// is set (the size search covers the base only, so the map is left out).
///
/// Every call creates and destroys its own TurboJPEG instance, so one `JPEGCoder` can be used
/// from any number of threads.
public struct JPEGCoder: ProgressiveImageDecoding {
    public init() {}

    /// Whether `data` starts like a JPEG (`FF D8 FF`).
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .jpeg
    }

    /// Decodes `data`.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` (not JPEG, truncated, corrupt),
    ///   `unsupportedFormat` (12-bit, lossless) or `imageTooLarge` (over ``/WebImageCore/DecodeOptions/limits``).
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try JPEGDecompression.decode(data, options: options, acceptDamage: false)
    }

    /// Reads the stored size and EXIF orientation from the header, without decoding pixels.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` or `unsupportedFormat`.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty data") }
        let header = try data.withUnsafeBytes { b in
            try JPEGDecompression.readHeader(b, handle: TurboJPEGHandle.decompressor())
        }
        var metadata = ImageMetadata(
            format: .jpeg, pixelSize: header.size, frameCount: 1, isAnimated: false,
            orientation: header.orientation, hasAlpha: false, colorProfile: header.colorProfile)
        data.withUnsafeBytes { b in
            do throws(GainMapIssue) { metadata.gainMap = try JPEGGainMapReader.summary(b, base: header.size) } catch { metadata.gainMapIssue = error }
            metadata.bitDepth = 8
        }
        return metadata
    }

    /// Whether this coder encodes `format` (JPEG only).
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .jpeg
    }

    /// Encodes the first frame of `image` as JPEG (see the type's documentation).
    /// - Throws: ``/WebImageCore/WebImageError/unsupportedFormat(_:reason:)`` for another format,
    ///   ``/WebImageCore/WebImageError/encodingFailed(reason:)`` when TurboJPEG fails.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .jpeg else {
            throw WebImageError.unsupportedFormat(format, reason: "JPEGCoder encodes JPEG only")
        }
        let geometry = EncodeOptions(maxPixelSize: options.maxPixelSize, keepAnimation: false)
        let writesMap = options.keepsGainMap && options.maxFileSize == nil
        let prepared: Image
        var mapQuality = options.clampedQuality
        if writesMap, image.gainMap == nil,
            let split = GainMapComputation.split(geometry.preparedImage(image, keepingHighBitDepth: true), settings: options.gainMap)
        {
            prepared = split
            mapQuality = options.gainMap.quality.map { min(1, max(0, $0.isNaN ? 0.9 : $0)) } ?? mapQuality
        } else {
            prepared = geometry.preparedImage(EightBitOutput.prepare(image))
        }
        var data = try JPEGCompression.encode(prepared, options: options)
        if let profile = EmbeddedProfile.iccData(for: prepared) {
            data = JPEGICCProfile.embed(profile, in: data)
        }
        guard writesMap, let map = prepared.gainMap else { return data }
        return try JPEGGainMapWriter.assemble(primary: data, map: map, quality: mapQuality)
    }

    /// JPEG can always be shown while it downloads (rows of a baseline file, passes of a
    /// progressive one).
    public func canDecodeIncrementally(_ header: Data) -> Bool {
        canDecode(header)
    }

    /// A fresh incremental decoder for one download.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        JPEGIncrementalDecoder(options: options)
    }
}
