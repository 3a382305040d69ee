import Foundation

/// What the library reads from an ICC profile's bytes without a colour engine: the data colour
/// space and the description tag (ICC.1 §7.2, §9.2.41; `desc` of v2 and `mluc` of v4).
///
/// Every read is bounds-checked against the data; a hostile profile gives `nil` or no
/// description, never a crash or a large allocation.
public struct ICCProfileHeader: Sendable, Hashable {
    /// The data colour space (header bytes 16–19).
    public var colorModel: ColorModel
    /// The profile/device class (header bytes 12–15), e.g. `mntr`, `prtr`, `scnr`.
    public var deviceClass: String
    /// The description tag's text, trimmed, when present and readable.
    public var description: String?

    /// The longest description kept, in characters.
    static let maxDescriptionLength = 200

    /// Reads `data`; `nil` when it is not an ICC profile (too short for a header and tag
    /// count, or no `acsp` signature at byte 36).
    public init?(_ data: Data) {
        guard data.count >= 132 else { return nil }
        let parsed: ICCProfileHeader? = data.withUnsafeBytes { raw in
            let b = HeaderBytes(raw)
            guard b.matches("acsp", at: 36), let space = b.fourCC(16), let deviceClass = b.fourCC(12) else {
                return nil
            }
            let model: ColorModel
            switch space {
            case "RGB ": model = .rgb
            case "GRAY": model = .gray
            case "CMYK": model = .cmyk
            default: model = .other
            }
            return ICCProfileHeader(
                colorModel: model, deviceClass: deviceClass, description: Self.readDescription(b))
        }
        guard let parsed else { return nil }
        self = parsed
    }

    private init(colorModel: ColorModel, deviceClass: String, description: String?) {
        self.colorModel = colorModel
        self.deviceClass = deviceClass
        self.description = description
    }

    /// The tag table entry for `signature`: the tag's bytes.
    static func tag(_ signature: String, in b: HeaderBytes) -> HeaderBytes? {
        guard let count = b.u32be(128) else { return nil }
        // Each entry is 12 bytes; the loop is bounded by the data.
        for index in 0..<min(count, (b.raw.count - 132) / 12) {
            let entry = 132 + index * 12
            guard b.matches(signature, at: entry), let offset = b.u32be(entry + 4), let size = b.u32be(entry + 8) else {
                continue
            }
            return b.slice(offset, size)
        }
        return nil
    }

    private static func readDescription(_ b: HeaderBytes) -> String? {
        guard let tag = tag("desc", in: b) else { return nil }
        var text: String?
        if tag.matches("desc", at: 0), let length = tag.u32be(8), let ascii = tag.slice(12, min(length, tag.count - 12, 4096)) {
            text = String(decoding: ascii.raw.prefix { $0 != 0 }, as: UTF8.self)
        } else if tag.matches("mluc", at: 0), let records = tag.u32be(8), records > 0, let recordSize = tag.u32be(12),
            recordSize >= 12, let length = tag.u32be(16 + 4), let offset = tag.u32be(16 + 8),
            let utf16 = tag.slice(offset, min(length, tag.count - offset, 8192))
        {
            var units: [UInt16] = []
            units.reserveCapacity(utf16.raw.count / 2)
            var i = 0
            while let unit = utf16.u16be(i) {
                if unit == 0 { break }
                units.append(UInt16(unit))
                i += 2
            }
            text = String(decoding: units, as: UTF16.self)
        }
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(maxDescriptionLength))
    }
}
