import Foundation
import WebImageCore

/// The ICC profile embedded in a JPEG's `APP2` `ICC_PROFILE` segments (ICC.1 Annex B.4): each
/// segment carries `ICC_PROFILE\0`, its 1-based sequence number, the segment count, and a part
/// of the profile; the parts are joined in sequence order.
///
/// Read from the bytes (TurboJPEG's ICC API is 3.1+); the walk stops at the first scan, and
/// every length is checked against the data, so hostile input only ends it early. A set of
/// segments with gaps, duplicates or disagreeing counts gives no profile, as libjpeg's
/// `jpeg_read_icc_profile` does.
enum JPEGICCProfile {
    /// The segment identifier, including its terminating zero.
    static let identifier = Array("ICC_PROFILE".utf8) + [0]
    /// Bytes of a segment before the profile data: identifier, sequence number, count.
    static let overhead = identifier.count + 2

    /// The profile in `data`, `nil` when there is none or it is malformed.
    static func read(_ data: Data) -> ColorProfile? {
        data.withUnsafeBytes { read(HeaderBytes($0)) }
    }

    static func read(_ b: HeaderBytes) -> ColorProfile? {
        guard b.u8(0) == 0xFF, b.u8(1) == 0xD8 else { return nil }
        var parts: [Int: UnsafeRawBufferPointer] = [:]
        var declaredCount: Int?
        var offset = 2
        while let marker = b.u8(offset), marker == 0xFF, let code = b.u8(offset + 1) {
            if code == 0xFF {  // fill byte
                offset += 1
                continue
            }
            if code == 0xD8 || (0xD0...0xD7).contains(code) || code == 0x01 {  // no length
                offset += 2
                continue
            }
            if code == 0xDA || code == 0xD9 { break }  // first scan or end: all APPn are before
            guard let length = b.u16be(offset + 2), length >= 2, let segment = b.slice(offset + 4, length - 2) else {
                break
            }
            if code == 0xE2, segment.count > overhead,
                identifier.indices.allSatisfy({ segment.raw[$0] == identifier[$0] })
            {
                let sequence = Int(segment.raw[identifier.count])
                let count = Int(segment.raw[identifier.count + 1])
                guard sequence >= 1, count >= 1, sequence <= count, declaredCount == nil || declaredCount == count,
                    parts[sequence] == nil
                else { return nil }
                declaredCount = count
                parts[sequence] = UnsafeRawBufferPointer(rebasing: segment.raw[overhead...])
            }
            offset += 2 + length
        }
        guard let declaredCount, parts.count == declaredCount else { return nil }
        var profile = Data()
        for sequence in 1...declaredCount {
            guard let part = parts[sequence] else { return nil }
            profile.append(contentsOf: part)
        }
        return ColorProfile(icc: profile)
    }

    /// `APP2` segments carrying `profile` (at most 65,519 profile bytes each), ready to be put
    /// after SOI; `nil` when the profile needs more than 255 segments.
    static func segments(for profile: Data) -> Data? {
        let chunk = 65_535 - 2 - overhead
        let count = (profile.count + chunk - 1) / chunk
        guard count >= 1, count <= 255 else { return nil }
        var out = Data()
        for index in 0..<count {
            let part = profile[(profile.startIndex + index * chunk)..<(profile.startIndex + min(profile.count, (index + 1) * chunk))]
            let length = 2 + overhead + part.count
            out.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)])
            out.append(contentsOf: identifier)
            out.append(contentsOf: [UInt8(index + 1), UInt8(count)])
            out.append(part)
        }
        return out
    }
}

extension JPEGICCProfile {
    /// `jpeg` with `profile` in `APP2` segments after SOI and the JFIF `APP0` segment (where
    /// libjpeg writes them); `jpeg` unchanged when the profile does not fit in 255 segments.
    static func embed(_ profile: Data, in jpeg: Data) -> Data {
        guard let segments = segments(for: profile), jpeg.count >= 4 else { return jpeg }
        var insertAt = 2
        let start = jpeg.startIndex
        if jpeg[start + 2] == 0xFF, jpeg[start + 3] == 0xE0, jpeg.count >= 6 {
            let length = Int(jpeg[start + 4]) << 8 | Int(jpeg[start + 5])
            if 4 + length <= jpeg.count { insertAt = 2 + 2 + length }
        }
        var out = Data(jpeg.prefix(insertAt))
        out.append(segments)
        out.append(jpeg.dropFirst(insertAt))
        return out
    }
}
