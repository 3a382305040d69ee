import Foundation

/// The metadata segments of a JPEG file, removed without touching its coded image: for
/// lossless transcoding (JPEG → JPEG XL) where metadata is stripped.
public enum JPEGMetadataSegments {
    /// `data` without its EXIF, XMP, IPTC and other application segments and comments before
    /// the first scan: kept are `APP0` (JFIF), `APP2` (ICC profile, MPF) and `APP14` (Adobe's
    /// colour transform), which decoders read to reproduce the pixels. `nil` when the markers
    /// cannot be walked up to a scan.
    public static func stripped(_ data: Data) -> Data? {
        data.withUnsafeBytes { bytes -> Data? in
            let walk = JPEGSegmentWalk(bytes: bytes, start: 0)
            let segments = walk.headerSegments()
            guard segments.contains(where: { $0.marker == 0xDA }) else { return nil }
            var out = Data(capacity: data.count)
            out.append(contentsOf: [0xFF, 0xD8])
            var copiedUpTo = 2
            for segment in segments {
                // The segment's marker and length sit just before its payload.
                let begin = segment.payload.lowerBound - 4
                guard removes(segment.marker) else { continue }
                if begin > copiedUpTo { out.append(contentsOf: bytes[copiedUpTo..<begin]) }
                copiedUpTo = segment.payload.upperBound
            }
            out.append(contentsOf: bytes[copiedUpTo...])
            return out
        }
    }

    /// Whether the JPEG carries an ICC profile (`APP2` `ICC_PROFILE`) before its first scan.
    public static func hasICCProfile(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            JPEGSegmentWalk(bytes: bytes, start: 0).headerSegments().contains {
                $0.marker == 0xE2 && $0.isNamed(Array("ICC_PROFILE".utf8), in: bytes)
            }
        }
    }

    /// `APP1`, `APP3`…`APP13`, `APP15` and `COM`.
    private static func removes(_ marker: UInt8) -> Bool {
        marker == 0xFE || ((0xE1...0xEF).contains(marker) && marker != 0xE2 && marker != 0xEE)
    }
}
