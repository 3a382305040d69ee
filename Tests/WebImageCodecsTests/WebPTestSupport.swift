import Foundation
import WebImageCore
import WebImageTesting

/// MD5 (RFC 1321), only to compare decoded output with the md5 sums of libwebp's conformance
/// vectors. Not for security.
enum WebPTestMD5 {
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]
    private static let constants: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64(abs(sin(Double(i + 1))) * 4_294_967_296))
    }

    /// The lowercase hex digest of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        var message = bytes
        let bitLength = UInt64(bytes.count) &* 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }

        var a0: UInt32 = 0x6745_2301
        var b0: UInt32 = 0xefcd_ab89
        var c0: UInt32 = 0x98ba_dcfe
        var d0: UInt32 = 0x1032_5476
        var words = [UInt32](repeating: 0, count: 16)
        var chunk = 0
        while chunk < message.count {
            for i in 0..<16 {
                let o = chunk + i * 4
                words[i] = UInt32(message[o]) | UInt32(message[o + 1]) << 8
                    | UInt32(message[o + 2]) << 16 | UInt32(message[o + 3]) << 24
            }
            var a = a0, b = b0, c = c0, d = d0
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: f = (b & c) | (~b & d); g = i
                case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * i) % 16
                }
                f = f &+ a &+ constants[i] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ (f << shifts[i] | f >> (32 - shifts[i]))
            }
            a0 = a0 &+ a
            b0 = b0 &+ b
            c0 = c0 &+ c
            d0 = d0 &+ d
            chunk += 64
        }
        var digest = ""
        for word in [a0, b0, c0, d0] {
            for i in 0..<4 { digest += String(format: "%02x", (word >> (8 * UInt32(i))) & 0xff) }
        }
        return digest
    }
}

enum WebPTestCorpus {
    /// The `decodes` WebP inputs of the manifest.
    static var decodable: [CorpusEntry] {
        Corpus.entries { $0.format == "WEBP" && $0.mustDecode }
    }

    /// Every file under `fuzz-webp-seeds/` (listed from the folder, not the manifest).
    static var fuzzSeeds: [String] {
        guard let root = Corpus.root,
            let names = try? FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("fuzz-webp-seeds").path)
        else { return [] }
        return names.sorted().map { "fuzz-webp-seeds/" + $0 }
    }

    /// `name → md5` of libwebp_tests.md5, for the `.pam` outputs.
    static let pamMD5: [String: String] = {
        guard Corpus.isAvailable,
            let text = try? String(contentsOf: Corpus.url("webp-conformance/libwebp_tests.md5"), encoding: .utf8)
        else { return [:] }
        var sums: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, parts[1].hasSuffix(".webp.pam") else { continue }
            sums[String(parts[1].dropLast(4))] = String(parts[0])
        }
        return sums
    }()

    /// The bytes `dwebp -pam` writes for `pixels`: a PAM (P7) header and the RGBA rows.
    static func pam(_ pixels: PixelBuffer) -> [UInt8] {
        let header = "P7\nWIDTH \(pixels.width)\nHEIGHT \(pixels.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        return Array(header.utf8) + pixels.bytes
    }
}

/// Synthetic images for encoder tests.
enum WebPTestImages {
    /// An opaque RGB gradient with a diagonal blue ramp that wraps (hard edges).
    static func gradient(width: Int = 96, height: Int = 64) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let o = (y * width + x) * 4
                    out[o] = UInt8(x * 255 / max(1, width - 1))
                    out[o + 1] = UInt8(y * 255 / max(1, height - 1))
                    out[o + 2] = UInt8(((x + y) * 2) & 0xff)
                    out[o + 3] = 255
                }
            }
        }
    }

    /// A smooth opaque gradient whose blue level is `blue` (distinct animation frames).
    static func smooth(width: Int, height: Int, blue: UInt8) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let o = (y * width + x) * 4
                    out[o] = UInt8(x * 255 / max(1, width - 1))
                    out[o + 1] = UInt8(y * 255 / max(1, height - 1))
                    out[o + 2] = blue
                    out[o + 3] = 255
                }
            }
        }
    }

    /// A pattern with varied alpha (including fully transparent pixels with colour).
    static func translucent(width: Int = 40, height: Int = 30) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let o = (y * width + x) * 4
                    out[o] = UInt8((x * 37 + y * 11) & 0xff)
                    out[o + 1] = UInt8((x * 5 + y * 29) & 0xff)
                    out[o + 2] = UInt8((x ^ y) * 7 & 0xff)
                    out[o + 3] = UInt8((x * 9 + y * 3) % 256)
                }
            }
        }
    }
}
