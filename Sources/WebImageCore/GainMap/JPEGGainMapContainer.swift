import Foundation

/// Where a JPEG's gain map is and what it says (SPEC H-2): Ultra HDR 1.0 (XMP `hdrgm:` and an
/// MPF secondary image), ISO 21496-1 (`APP2` metadata in the primary and the gain-map image), or
/// both together as libultrahdr writes them.
///
/// A file has a gain map when its primary image signals one: an ISO 21496-1 version block, or
/// XMP with an `hdrgm:Version`. The gain-map image is the MPF index's second image when that
/// entry points at a JPEG inside the file, else the JPEG that follows the primary's `EOI`
/// (files whose MPF offsets are wrong exist; libultrahdr finds the image that way too). Its
/// metadata comes from its ISO 21496-1 block when that parses, else from its XMP (or, failing
/// that, the primary's XMP). Nothing here decodes pixels.
public struct JPEGGainMapContainer: Sendable {
    /// The bytes of the gain-map image (a whole JPEG).
    public var mapRange: Range<Int>
    /// The parsed values.
    public var metadata: GainMapMetadata
    /// The metadata bytes as found.
    public var encoded: EncodedGainMapMetadata

    /// The container of `data`, `nil` when the primary image does not signal a gain map.
    /// - Throws: ``GainMapIssue`` when it signals one that cannot be used: no gain-map image,
    ///   or no readable metadata (the reason names what was wrong).
    public static func locate(_ data: Data) throws(GainMapIssue) -> JPEGGainMapContainer? {
        let result = data.withUnsafeBytes { b in
            Result { () throws(GainMapIssue) -> JPEGGainMapContainer? in try locate(b) }
        }
        return try result.get()
    }

    /// ``locate(_:)-(Data)`` on bytes in memory (a file's whole bytes).
    public static func locate(_ bytes: UnsafeRawBufferPointer) throws(GainMapIssue) -> JPEGGainMapContainer? {
        let primary = JPEGSegmentWalk(bytes: bytes, start: 0)
        var primaryISO: Data?
        var primaryXMP: Data?
        var mpf: (payload: Data, tiffStart: Int)?
        for segment in primary.headerSegments() {
            if segment.marker == 0xE2, primaryISO == nil, segment.isNamed(GainMapISO21496.identifier, in: bytes) {
                primaryISO = segment.data(after: GainMapISO21496.identifier, in: bytes)
            } else if segment.marker == 0xE1, primaryXMP == nil, segment.isNamed(GainMapXMP.identifier, in: bytes) {
                primaryXMP = segment.data(after: GainMapXMP.identifier, in: bytes)
            } else if segment.marker == 0xE2, mpf == nil, segment.isNamed(MPFIndex.identifier, in: bytes) {
                let tiffStart = segment.payload.lowerBound + MPFIndex.identifier.count
                mpf = (Data(bytes[tiffStart..<segment.payload.upperBound]), tiffStart)
            }
        }
        // Whether the primary signals a gain map at all.
        var primaryContent: GainMapXMP.Content?
        var xmpIssue: GainMapIssue?
        if let primaryXMP {
            do { primaryContent = try GainMapXMP.parse(primaryXMP) } catch { xmpIssue = error }
        }
        guard primaryISO != nil || primaryContent?.version != nil || xmpIssue != nil else { return nil }

        let mapRange = try secondaryImage(bytes, mpf: mpf, primary: primary)
        let map = JPEGSegmentWalk(bytes: bytes, start: mapRange.lowerBound)
        var mapISO: Data?
        var mapXMP: Data?
        for segment in map.headerSegments() where segment.payload.upperBound <= mapRange.upperBound {
            if segment.marker == 0xE2, mapISO == nil, segment.isNamed(GainMapISO21496.identifier, in: bytes) {
                mapISO = segment.data(after: GainMapISO21496.identifier, in: bytes)
            } else if segment.marker == 0xE1, mapXMP == nil, segment.isNamed(GainMapXMP.identifier, in: bytes) {
                mapXMP = segment.data(after: GainMapXMP.identifier, in: bytes)
            }
        }

        var reasons: [String] = []
        var metadata: GainMapMetadata?
        if let mapISO {
            do throws(GainMapIssue) {
                if let primaryISO, try GainMapISO21496.minimumVersion(primaryISO) != 0 {
                    throw GainMapIssue(.metadata, "the primary's ISO 21496-1 minimum version is not 0")
                }
                metadata = try GainMapISO21496.parse(mapISO)
            } catch { reasons.append(error.reason) }
        }
        if metadata == nil, let mapXMP {
            do {
                metadata = try GainMapXMP.parse(mapXMP)?.metadata
                if metadata == nil { reasons.append("the gain-map image's XMP has no hdrgm values") }
            } catch { reasons.append(error.reason) }
        }
        if metadata == nil, let values = primaryContent?.metadata { metadata = values }
        if metadata == nil, let xmpIssue { reasons.append(xmpIssue.reason) }
        guard let metadata else {
            if reasons.isEmpty { reasons.append("no ISO 21496-1 or hdrgm metadata in the gain-map image") }
            throw GainMapIssue(.metadata, reasons.joined(separator: "; "))
        }
        return JPEGGainMapContainer(
            mapRange: mapRange, metadata: metadata,
            encoded: EncodedGainMapMetadata(iso21496: mapISO, xmp: mapXMP, primaryISO21496: primaryISO))
    }

    /// Where the gain-map image lies: the MPF index's second image when it checks out, else
    /// the JPEG after the primary's end.
    static func secondaryImage(_ bytes: UnsafeRawBufferPointer, mpf: (payload: Data, tiffStart: Int)?, primary: JPEGSegmentWalk) throws(GainMapIssue) -> Range<Int> {
        func isJPEGStart(_ at: Int) -> Bool {
            at >= 0 && at + 3 <= bytes.count && bytes[at] == 0xFF && bytes[at + 1] == 0xD8 && bytes[at + 2] == 0xFF
        }
        var mpfProblem: String?
        if let mpf {
            do {
                let index = try MPFIndex(tiff: mpf.payload)
                if index.entries.count >= 2 {
                    let entry = index.entries[1]
                    let (start, overflow) = mpf.tiffStart.addingReportingOverflow(entry.offset)
                    if !overflow, entry.offset > 0, isJPEGStart(start), entry.size >= 4, entry.size <= bytes.count - start {
                        return start..<(start + entry.size)
                    }
                    mpfProblem = "the MPF entry of the second image (offset \(entry.offset), \(entry.size) bytes) does not point at a JPEG in the file"
                }
            } catch {
                mpfProblem = error.reason
            }
        }
        if let end = primary.endOfImage() {
            // Padding between the images is tolerated; the next JPEG start is the map.
            var p = end
            while p + 3 <= bytes.count {
                if isJPEGStart(p) { return p..<bytes.count }
                p += 1
            }
        }
        throw GainMapIssue(.container, mpfProblem.map { $0 + ", and no JPEG follows the primary image" } ?? "no gain-map image follows the primary image")
    }
}
