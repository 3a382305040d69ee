import Foundation
import WebImageCore

/// Decodes a JPEG's gain map (SPEC H-2) beside its base: the container
/// (``/WebImageCore/JPEGGainMapContainer``) says where the map is and what it means; the map is
/// decoded here at the base's scale.
///
/// - Size: a base decoded at 1/d by DCT scaling gets its map decoded at 1/d too; a thumbnail
///   gets its map at the same fraction (``/WebImageCore/GainMap/size(forBase:currentBase:)``),
///   decoded at the smallest DCT scale that covers twice that, then resampled, as the base is.
/// - Values: code values as stored, never colour-managed; a grey map stays one channel.
/// - Limits: the map's stored size must pass the pixel limit, and base and map together the
///   decoded-bytes budget.
/// - Failures never fail the decode: the base comes back alone with the reason
///   (``/WebImageCore/Image/gainMapIssue``).
enum JPEGGainMapReader {
    /// `image` (the base decoded from `b`, stored size `header.size`, decoded to `decoded` in
    /// stored orientation and `allocated` by the decompressor) with its gain map or the reason
    /// it has none.
    static func attach(
        to image: Image, _ b: UnsafeRawBufferPointer, header: JPEGDecompression.Header, decoded: PixelSize,
        allocated: PixelSize, scaleDenominator: Int?, options: DecodeOptions
    ) -> Image {
        do {
            guard let map = try read(b, header: header, decoded: decoded, allocated: allocated, scaleDenominator: scaleDenominator, options: options) else {
                return image
            }
            return image.replacing(gainMap: options.applyOrientation ? map.applying(header.orientation) : map)
        } catch {
            return image.replacing(gainMap: nil, issue: error)
        }
    }

    /// The map's header: where it is, what it says, its stored size and channel count.
    struct Located {
        var container: JPEGGainMapContainer
        var header: JPEGDecompression.Header
        var channelCount: Int
    }

    /// Finds and checks the map of a file whose base is stored at `base`.
    static func locate(_ b: UnsafeRawBufferPointer, base: PixelSize) throws(GainMapIssue) -> Located? {
        guard let container = try JPEGGainMapContainer.locate(b) else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: b[container.mapRange])
        let mapHeader: JPEGDecompression.Header
        do {
            mapHeader = try JPEGDecompression.readHeader(slice, handle: TurboJPEGHandle.decompressor())
        } catch {
            throw GainMapIssue(.mapImage, "the gain-map image's header: \(error)")
        }
        guard !mapHeader.isCMYK else { throw GainMapIssue(.mapImage, "the gain-map image is CMYK") }
        let size = mapHeader.size
        guard size.width <= base.width, size.height <= base.height else {
            throw GainMapIssue(.mapImage, "the gain map (\(size)) is larger than the image (\(base))")
        }
        let rx = Double(base.width) / Double(size.width), ry = Double(base.height) / Double(size.height)
        let whole = GainMap.integerScale(base: base.width, map: size.width) != nil && GainMap.integerScale(base: base.height, map: size.height) != nil
        guard whole || abs(rx - ry) <= 0.05 * max(rx, ry) else {
            throw GainMapIssue(.mapImage, "the gain map (\(size)) does not have the image's (\(base)) aspect ratio")
        }
        let channels = mapHeader.colorModel == .gray ? 1 : 3
        return Located(container: container, header: mapHeader, channelCount: channels)
    }

    static func read(
        _ b: UnsafeRawBufferPointer, header: JPEGDecompression.Header, decoded: PixelSize, allocated: PixelSize,
        scaleDenominator: Int?, options: DecodeOptions
    ) throws(GainMapIssue) -> GainMap? {
        guard let located = try locate(b, base: header.size) else { return nil }
        let full = located.header.size
        // The map's final size, and what the DCT-scaled decode produces on the way.
        let target: PixelSize
        let decodeSize: PixelSize
        if let d = scaleDenominator {
            target = JPEGCoder.reducedSize(of: full, scaleDenominator: d)
            decodeSize = target
        } else {
            target = GainMap.mapSize(forBase: decoded, base: header.size, map: full)
            decodeSize = JPEGDecompression.dctScaledSize(of: full, covering: JPEGDecompression.thumbnailDecodeTarget(target, full: full))
        }
        do {
            try options.limits.check(canvas: full, allocating: decodeSize)
        } catch {
            throw GainMapIssue(.limits, "\(error)")
        }
        let together = DecodeLimits.decodedBytes(frames: 1, of: allocated) + DecodeLimits.decodedBytes(frames: 1, of: decodeSize)
        guard together <= options.limits.maxDecodedBytes else {
            throw GainMapIssue(
                .limits,
                "the image and its gain map need \(DecodeLimits.formatBytes(together)); the decoded-bytes budget is "
                    + DecodeLimits.formatBytes(options.limits.maxDecodedBytes))
        }
        let slice = UnsafeRawBufferPointer(rebasing: b[located.container.mapRange])
        var pixels: PixelBuffer
        do {
            let handle = try TurboJPEGHandle.decompressor()
            let mapHeader = try JPEGDecompression.readHeader(slice, handle: handle)
            pixels = try PixelBuffer.make(width: decodeSize.width, height: decodeSize.height) { out in
                try JPEGDecompression.decompress(
                    slice, into: out, size: decodeSize, header: mapHeader, handle: handle, acceptDamage: false, colorManagement: .ignore)
            }
        } catch {
            throw GainMapIssue(.mapImage, "the gain-map image: \(error)")
        }
        if pixels.width != target.width || pixels.height != target.height {
            pixels = pixels.thumbnail(to: target)
        }
        return GainMap(
            pixels: pixels, channelCount: located.channelCount, metadata: located.container.metadata, encoded: located.container.encoded)
    }

    /// What `/info` reports, from the headers alone; `nil` when the file has no gain map.
    static func summary(_ b: UnsafeRawBufferPointer, base: PixelSize) throws(GainMapIssue) -> GainMapSummary? {
        guard let located = try locate(b, base: base) else { return nil }
        return GainMapSummary(pixelSize: located.header.size, channelCount: located.channelCount, metadata: located.container.metadata)
    }
}
