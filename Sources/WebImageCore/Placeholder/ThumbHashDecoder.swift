import Foundation

/// A ThumbHash's header and coefficients, checked, and the image they describe.
struct ThumbHashDecoder {
    let lDC: Double, pDC: Double, qDC: Double, aDC: Double
    let hasAlpha: Bool
    let isLandscape: Bool
    /// Luminance coefficient counts across and down (at least 3 each).
    let lx: Int, ly: Int
    let lAC: [Double], pAC: [Double], qAC: [Double], aAC: [Double]
    /// Width / height, from the counts as stored.
    let aspectRatio: Double

    /// Parses `hash`.
    /// - Throws: ``WebImageError/badImageData(reason:)`` when it is shorter than its header
    ///   says.
    init(_ hash: [UInt8], saturationBoost: Double) throws(WebImageError) {
        guard hash.count >= 5 else {
            throw .badImageData(reason: "a ThumbHash has at least 5 bytes, this one \(hash.count)")
        }
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        lDC = Double(header24 & 63) / 63
        pDC = Double((header24 >> 6) & 63) / 31.5 - 1
        qDC = Double((header24 >> 12) & 63) / 31.5 - 1
        let lScale = Double((header24 >> 18) & 31) / 31
        hasAlpha = header24 >> 23 != 0
        let pScale = Double((header16 >> 3) & 63) / 63
        let qScale = Double((header16 >> 9) & 63) / 63
        isLandscape = header16 >> 15 != 0
        let lCount = header16 & 7
        let lMax = hasAlpha ? 5 : 7
        let storedX = isLandscape ? lMax : lCount
        let storedY = isLandscape ? lCount : lMax
        guard storedX > 0, storedY > 0 else {
            throw .badImageData(reason: "the ThumbHash's header has no luminance terms")
        }
        aspectRatio = Double(storedX) / Double(storedY)
        lx = max(3, storedX)
        ly = max(3, storedY)
        if hasAlpha && hash.count < 6 {
            throw .badImageData(reason: "a ThumbHash with alpha has at least 6 bytes, this one 5")
        }
        aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
        let aScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 1
        var reader = Nibbles(hash: hash, start: hasAlpha ? 6 : 5)
        lAC = try reader.channel(nx: lx, ny: ly, scale: lScale)
        pAC = try reader.channel(nx: 3, ny: 3, scale: pScale * saturationBoost)
        qAC = try reader.channel(nx: 3, ny: 3, scale: qScale * saturationBoost)
        if hasAlpha {
            aAC = try reader.channel(nx: 5, ny: 5, scale: aScale)
        } else {
            aAC = []
        }
    }

    /// Reads the 4-bit AC terms in order.
    private struct Nibbles {
        let hash: [UInt8]
        let start: Int
        var index = 0

        init(hash: [UInt8], start: Int) {
            self.hash = hash
            self.start = start
        }

        mutating func channel(nx: Int, ny: Int, scale: Double) throws(WebImageError) -> [Double] {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy == 0 ? 1 : 0
                while cx * ny < nx * (ny - cy) {
                    let byte = start + index >> 1
                    guard byte < hash.count else {
                        throw .badImageData(reason: "the ThumbHash is shorter than its header says (\(hash.count) bytes)")
                    }
                    let nibble = (Int(hash[byte]) >> ((index & 1) * 4)) & 15
                    ac.append((Double(nibble) / 7.5 - 1) * scale)
                    index += 1
                    cx += 1
                }
            }
            return ac
        }
    }

    /// The image: 32 pixels on the longer side (as the reference decoder), straight alpha.
    func render() -> Image {
        let w = max(1, min(32, Int((aspectRatio > 1 ? 32 : 32 * aspectRatio).rounded())))
        let h = max(1, min(32, Int((aspectRatio > 1 ? 32 / aspectRatio : 32).rounded())))
        let n = max(lx, hasAlpha ? 5 : 3)
        let m = max(ly, hasAlpha ? 5 : 3)
        var fx = [Double](repeating: 0, count: n)
        var fy = [Double](repeating: 0, count: m)
        let pixels = PixelBuffer.make(width: w, height: h) { out in
            for y in 0..<h {
                for cy in 0..<m { fy[cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
                for x in 0..<w {
                    for cx in 0..<n { fx[cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                    var l = lDC
                    var j = 0
                    for cy in 0..<ly {
                        let fy2 = fy[cy] * 2
                        var cx = cy == 0 ? 1 : 0
                        while cx * ly < lx * (ly - cy) {
                            l += lAC[j] * fx[cx] * fy2
                            j += 1
                            cx += 1
                        }
                    }
                    var p = pDC
                    var q = qDC
                    j = 0
                    for cy in 0..<3 {
                        let fy2 = fy[cy] * 2
                        for cx in (cy == 0 ? 1 : 0)..<(3 - cy) {
                            let f = fx[cx] * fy2
                            p += pAC[j] * f
                            q += qAC[j] * f
                            j += 1
                        }
                    }
                    var a = aDC
                    if hasAlpha {
                        j = 0
                        for cy in 0..<5 {
                            let fy2 = fy[cy] * 2
                            for cx in (cy == 0 ? 1 : 0)..<(5 - cy) {
                                a += aAC[j] * fx[cx] * fy2
                                j += 1
                            }
                        }
                    }
                    let b = l - 2 / 3 * p
                    let r = (3 * l - b + q) / 2
                    let g = r - q
                    let o = (y * w + x) * 4
                    out[o] = Self.byte(r)
                    out[o + 1] = Self.byte(g)
                    out[o + 2] = Self.byte(b)
                    out[o + 3] = Self.byte(a)
                }
            }
        }
        return Image(pixels: pixels, hasAlpha: hasAlpha)
    }

    /// 0…1 as a byte, rounded to nearest.
    private static func byte(_ value: Double) -> UInt8 {
        UInt8(max(0, min(1, value)) * 255 + 0.5)
    }
}
