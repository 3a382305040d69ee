import Foundation

/// Evan Wallace's ThumbHash encoder over at most 100 × 100 straight-alpha RGBA pixels.
struct ThumbHashEncoder {
    let w: Int
    let h: Int
    let rgba: [UInt8]

    init(_ pixels: PixelBuffer) {
        w = pixels.width
        h = pixels.height
        rgba = pixels.bytes
    }

    /// JavaScript's `Math.round` for the non-negative values the format stores.
    @inline(__always)
    static func round(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }

    func encode() -> [UInt8] {
        let count = w * h
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<count {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            avgR += alpha / 255 * Double(rgba[i * 4])
            avgG += alpha / 255 * Double(rgba[i * 4 + 1])
            avgB += alpha / 255 * Double(rgba[i * 4 + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }
        let hasAlpha = avgA < Double(count)
        let lLimit: Double = hasAlpha ? 5 : 7
        let longer = Double(max(w, h))
        let lx = max(1, Self.round(lLimit * Double(w) / longer))
        let ly = max(1, Self.round(lLimit * Double(h) / longer))
        var l = [Double](repeating: 0, count: count)
        var p = [Double](repeating: 0, count: count)
        var q = [Double](repeating: 0, count: count)
        var a = [Double](repeating: 0, count: count)
        for i in 0..<count {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[i * 4])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        let lChannel = encodeChannel(l, nx: max(3, lx), ny: max(3, ly))
        let pChannel = encodeChannel(p, nx: 3, ny: 3)
        let qChannel = encodeChannel(q, nx: 3, ny: 3)
        let aChannel = hasAlpha ? encodeChannel(a, nx: 5, ny: 5) : nil

        let isLandscape = w > h
        var header24 = Self.round(63 * lChannel.dc) & 63
        header24 |= (Self.round(31.5 + 31.5 * pChannel.dc) & 63) << 6
        header24 |= (Self.round(31.5 + 31.5 * qChannel.dc) & 63) << 12
        header24 |= (Self.round(31 * lChannel.scale) & 31) << 18
        if hasAlpha { header24 |= 1 << 23 }
        var header16 = (isLandscape ? ly : lx) & 7
        header16 |= (Self.round(63 * pChannel.scale) & 63) << 3
        header16 |= (Self.round(63 * qChannel.scale) & 63) << 9
        if isLandscape { header16 |= 1 << 15 }
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16),
            UInt8(header16 & 255), UInt8(header16 >> 8),
        ]
        if let aChannel {
            hash.append(UInt8((Self.round(15 * aChannel.dc) & 15) | (Self.round(15 * aChannel.scale) & 15) << 4))
        }
        let acStart = hash.count
        var acs = lChannel.ac + pChannel.ac + qChannel.ac
        if let aChannel { acs += aChannel.ac }
        hash += [UInt8](repeating: 0, count: (acs.count + 1) / 2)
        for (index, f) in acs.enumerated() {
            hash[acStart + index >> 1] |= UInt8(Self.round(15 * f) & 15) << ((index & 1) * 4)
        }
        return hash
    }

    /// The DC term, the AC terms mapped to 0…1 around the largest one, and that largest
    /// magnitude, for the `nx` × `ny` triangle of coefficients (`cx·ny < nx·(ny − cy)`).
    private func encodeChannel(_ channel: [Double], nx: Int, ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        let width = Double(w)
        let height = Double(h)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<w { fx[x] = cos(Double.pi / width * Double(cx) * (Double(x) + 0.5)) }
                for y in 0..<h {
                    let fy = cos(Double.pi / height * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 {
            for i in ac.indices { ac[i] = 0.5 + 0.5 / scale * ac[i] }
        }
        return (dc, ac, scale)
    }
}
