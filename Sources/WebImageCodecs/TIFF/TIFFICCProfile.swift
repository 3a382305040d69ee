import Foundation
import WebImageCore

/// The ICC profile of a TIFF file's first page: tag 34675 (`InterColorProfile`, type UNDEFINED
/// or BYTE) of IFD0 (G-1), read from the bytes in either byte order. Classic TIFF only
/// (a BigTIFF file gives no profile). Every read is bounds-checked; at most
/// ``TIFFICCProfile/maxEntries`` entries are looked at.
enum TIFFICCProfile {
    static let tag = 34_675
    static let maxEntries = 4096

    /// The profile, `nil` when there is none or its colour model is not one of `models` (RGB
    /// and grey by default: only pages read as CMYK samples use a CMYK profile, and libtiff's
    /// RGBA reader converts other spaces itself).
    static func read(_ data: Data, models: [ColorModel] = [.rgb, .gray]) -> ColorProfile? {
        let bytes: Data? = data.withUnsafeBytes { raw in
            let b = HeaderBytes(raw)
            let bigEndian: Bool
            if b.matches("II", at: 0) {
                bigEndian = false
            } else if b.matches("MM", at: 0) {
                bigEndian = true
            } else {
                return nil
            }
            guard b.u16(2, bigEndian: bigEndian) == 42, let ifd = b.u32(4, bigEndian: bigEndian),
                let count = b.u16(ifd, bigEndian: bigEndian)
            else { return nil }
            for index in 0..<min(count, maxEntries) {
                let entry = ifd + 2 + index * 12
                guard let tag = b.u16(entry, bigEndian: bigEndian), let type = b.u16(entry + 2, bigEndian: bigEndian),
                    let length = b.u32(entry + 4, bigEndian: bigEndian)
                else { return nil }
                guard tag == Self.tag else { continue }
                guard type == 7 || type == 1 else { return nil }
                // Four bytes or fewer sit in the value field itself; an ICC profile never does.
                guard length > 4, let offset = b.u32(entry + 8, bigEndian: bigEndian),
                    let profile = b.slice(offset, length)
                else { return nil }
                return Data(profile.raw)
            }
            return nil
        }
        return bytes.flatMap { ColorProfile(icc: $0) }.flatMap { models.contains($0.colorModel) ? $0 : nil }
    }
}
