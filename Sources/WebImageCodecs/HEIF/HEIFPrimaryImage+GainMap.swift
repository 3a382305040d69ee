import CHEIF
import Foundation
import WebImageCore

/// Apple's HDR gain map of an iPhone HEIC (SPEC H-2), read through libheif's auxiliary-image
/// API and restated as an ISO 21496-1 map (``/WebImageCore/AppleGainMap``) with the headroom
/// of the EXIF maker note (``/WebImageCore/AppleHDRHeadroom``).
///
/// - The map is the primary image's auxiliary image of type
///   `urn:com:apple:photo:2020:aux:hdrgainmap` (depth and alpha images are skipped).
/// - Its stored size must fit in the base with the base's aspect ratio (iPhones store half the
///   width and height), and it counts against the pixel limit and, with the base, the
///   decoded-bytes budget.
/// - libheif 1.15 applies an item's own `irot`/`imir` properties and exposes no way to read
///   the primary's, so a map whose shape only fits the base turned a quarter is refused
///   rather than guessed.
extension HEIFPrimaryImage {
    /// The handle of Apple's gain map, or `nil` when the image has none.
    func appleGainMapHandle() -> OpaquePointer? {
        let filter = Int32(LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH)
        let count = Int(heif_image_handle_get_number_of_auxiliary_images(handle, filter))
        guard count > 0, count <= 64 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_auxiliary_image_IDs(handle, filter, &ids, Int32(count)))
        for id in ids.prefix(max(0, min(listed, count))) {
            var aux: OpaquePointer?
            guard heif_image_handle_get_auxiliary_image_handle(handle, id, &aux).code == heif_error_Ok, let aux else { continue }
            var type: UnsafePointer<CChar>?
            var matches = false
            if heif_image_handle_get_auxiliary_type(aux, &type).code == heif_error_Ok, let text = type {
                matches = String(cString: text) == AppleGainMap.auxiliaryType
                heif_image_handle_free_auxiliary_types(aux, &type)
            }
            if matches { return aux }
            heif_image_handle_release(aux)
        }
        return nil
    }

    /// The headroom from the primary image's EXIF maker note, or `nil`.
    func appleHeadroom() -> AppleHDRHeadroom? {
        var ids = [heif_item_id](repeating: 0, count: 8)
        let found = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &ids, Int32(ids.count)))
        for id in ids.prefix(max(0, min(found, ids.count))) {
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 8, size <= 1 << 20 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            let error = bytes.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
            guard error.code == heif_error_Ok else { continue }
            if let headroom = AppleHDRHeadroom.read(exif: Data(bytes)) { return headroom }
        }
        return nil
    }

    /// The map's stored size, after checking it fits the base; `nil` when there is no map.
    private func checkedMap() throws(GainMapIssue) -> (handle: OpaquePointer, size: PixelSize, headroom: Double)? {
        guard let aux = appleGainMapHandle() else { return nil }
        let mapSize = PixelSize(width: Int(heif_image_handle_get_width(aux)), height: Int(heif_image_handle_get_height(aux)))
        let base = size
        do throws(GainMapIssue) {
            guard mapSize.width > 0, mapSize.height > 0, mapSize.width <= base.width, mapSize.height <= base.height else {
                throw GainMapIssue(.mapImage, "the gain map (\(mapSize)) does not fit in the image (\(base))")
            }
            let rx = Double(base.width) / Double(mapSize.width), ry = Double(base.height) / Double(mapSize.height)
            let whole = GainMap.integerScale(base: base.width, map: mapSize.width) != nil
                && GainMap.integerScale(base: base.height, map: mapSize.height) != nil
            guard whole || abs(rx - ry) <= 0.05 * max(rx, ry) else {
                throw GainMapIssue(.mapImage, "the gain map (\(mapSize)) does not have the image's (\(base)) aspect ratio")
            }
            guard let values = appleHeadroom(), let headroom = values.headroom else {
                throw GainMapIssue(.metadata, "the Apple maker note has no HDR headroom (tags 33 and 48)")
            }
            return (aux, mapSize, headroom)
        } catch {
            heif_image_handle_release(aux)
            throw error
        }
    }

    /// What `/info` reports about the map, from the container alone.
    func appleGainMapSummary() throws(GainMapIssue) -> GainMapSummary? {
        guard let map = try checkedMap() else { return nil }
        heif_image_handle_release(map.handle)
        guard map.headroom > 1.0001 else { return nil }
        return GainMapSummary(pixelSize: map.size, channelCount: 1, metadata: AppleGainMap.metadata(headroom: map.headroom))
    }

    /// The map decoded and sized for a base shown at `baseSize` (the decode's output size).
    /// - Throws: a ``/WebImageCore/GainMapIssue`` saying why the map cannot be kept.
    func decodeAppleGainMap(baseSize: PixelSize, limits: DecodeLimits) throws(GainMapIssue) -> GainMap? {
        guard let map = try checkedMap() else { return nil }
        defer { heif_image_handle_release(map.handle) }
        do {
            try limits.check(canvas: map.size)
        } catch {
            throw GainMapIssue(.limits, "\(error)")
        }
        let together = DecodeLimits.decodedBytes(frames: 1, of: size) + DecodeLimits.decodedBytes(frames: 1, of: map.size)
        guard together <= limits.maxDecodedBytes else {
            throw GainMapIssue(
                .limits,
                "the image and its gain map need \(DecodeLimits.formatBytes(together)); the decoded-bytes budget is "
                    + DecodeLimits.formatBytes(limits.maxDecodedBytes))
        }
        var pixels: PixelBuffer
        do {
            pixels = try Self.decode(map.handle, size: map.size, hasAlpha: false, limits: limits)
        } catch {
            throw GainMapIssue(.mapImage, "the gain-map image: \(error)")
        }
        let target = GainMap.mapSize(forBase: baseSize, base: size, map: map.size)
        if target != map.size { pixels = pixels.thumbnail(to: target) }
        return AppleGainMap.gainMap(pixels: pixels, headroom: map.headroom)
    }
}
