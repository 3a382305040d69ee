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
/// - Orientation: libheif 1.15 applies each item's own `irot`/`imir` properties. iPhones
///   associate the primary's with the map item too, so both turn alike. A map without any,
///   under a primary that is only turned (`irot`), is turned here as the primary is (the
///   properties read from `ipma`, ``/WebImageCore/HEIFItemTransform``); any other mismatch
///   (mirroring, or transforms of the map's own that differ) drops the map rather than guess.
extension HEIFPrimaryImage {
    /// The handle and item ID of Apple's gain map, or `nil` when the image has none.
    func appleGainMapHandle() -> (handle: OpaquePointer, id: Int)? {
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
            if matches { return (aux, Int(id)) }
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

    /// The quarter turns (anticlockwise) the map needs on top of its own transforms to be
    /// oriented as the primary: 0 when both carry the same `irot`/`imir` (libheif applies them
    /// to each), the primary's turns when it is only turned and the map carries nothing.
    /// - Throws: a ``/WebImageCore/GainMapIssue`` for any other mismatch.
    func mapQuarterTurns(mapItem: Int) throws(GainMapIssue) -> Int {
        var primaryID: heif_item_id = 0
        guard heif_context_get_primary_image_ID(context, &primaryID).code == heif_error_Ok else { return 0 }
        let bytes = HeaderBytes(UnsafeRawBufferPointer(input))
        let primary = HEIFItemTransform.transforms(of: Int(primaryID), in: bytes)
        let map = HEIFItemTransform.transforms(of: mapItem, in: bytes)
        if primary == map { return 0 }
        var turns = 0
        for transform in primary {
            guard map.isEmpty, case .rotation(let quarterTurns) = transform else {
                throw GainMapIssue(.mapImage, "the gain map's rotation or mirroring (\(map)) differs from the image's (\(primary))")
            }
            turns += quarterTurns
        }
        return turns & 3
    }

    /// The map's size as it will be shown (after ``mapQuarterTurns(mapItem:)``), after
    /// checking it fits the base; `nil` when there is no map.
    private func checkedMap() throws(GainMapIssue) -> (handle: OpaquePointer, size: PixelSize, turns: Int, headroom: Double)? {
        guard let found = appleGainMapHandle() else { return nil }
        let aux = found.handle, auxID = found.id
        var mapSize = PixelSize(width: Int(heif_image_handle_get_width(aux)), height: Int(heif_image_handle_get_height(aux)))
        let base = size
        do throws(GainMapIssue) {
            let turns = try mapQuarterTurns(mapItem: auxID)
            if turns & 1 == 1 { mapSize = PixelSize(width: mapSize.height, height: mapSize.width) }
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
            return (aux, mapSize, turns, headroom)
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
            let stored = map.turns & 1 == 1 ? PixelSize(width: map.size.height, height: map.size.width) : map.size
            pixels = try Self.decode(map.handle, size: stored, hasAlpha: false, limits: limits)
        } catch {
            throw GainMapIssue(.mapImage, "the gain-map image: \(error)")
        }
        // Anticlockwise quarter turns as the orientation that shows them.
        if map.turns != 0 { pixels = pixels.applying([ImageOrientation.up, .left, .down, .right][map.turns]) }
        let target = GainMap.mapSize(forBase: baseSize, base: size, map: map.size)
        if target != map.size { pixels = pixels.thumbnail(to: target) }
        return AppleGainMap.gainMap(pixels: pixels, headroom: map.headroom)
    }
}
