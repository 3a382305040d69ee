import Testing
import WebImageCore

/// `PixelBuffer.downscaled(to:)` against a direct, per-destination-pixel formulation of the
/// documented rule (the rewrite for speed must not change a single byte).
@Suite("Box downscale (codec thumbnails)")
struct DownscaleTests {
    /// The documented rule, computed the slow obvious way.
    static func reference(_ p: PixelBuffer, _ dw: Int, _ dh: Int) -> [UInt8] {
        var out: [UInt8] = []
        for dy in 0..<dh {
            let y0 = dy * p.height / dh
            let y1 = max(y0 + 1, (dy + 1) * p.height / dh)
            for dx in 0..<dw {
                let x0 = dx * p.width / dw
                let x1 = max(x0 + 1, (dx + 1) * p.width / dw)
                var r = 0, g = 0, b = 0, a = 0, n = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let c = p.pixel(x: x, y: y)
                        r += Int(c.r) * Int(c.a)
                        g += Int(c.g) * Int(c.a)
                        b += Int(c.b) * Int(c.a)
                        a += Int(c.a)
                        n += 1
                    }
                }
                if a == 0 {
                    out += [0, 0, 0, 0]
                } else {
                    out += [UInt8((r + a / 2) / a), UInt8((g + a / 2) / a), UInt8((b + a / 2) / a), UInt8((a + n / 2) / n)]
                }
            }
        }
        return out
    }

    /// Deterministic pseudo-random pixels; `alphaMode` 0 = opaque, 1 = any, 2 = mostly transparent.
    static func noise(_ w: Int, _ h: Int, seed: UInt64, alphaMode: Int) -> PixelBuffer {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> UInt8 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(w * h * 4)
        for _ in 0..<(w * h) {
            bytes += [next(), next(), next()]
            let alpha = next()
            switch alphaMode {
            case 0: bytes.append(255)
            case 1: bytes.append(alpha)
            default: bytes.append(alpha < 200 ? 0 : alpha)
            }
        }
        return PixelBuffer(width: w, height: h, bytes: bytes)
    }

    @Test(
        "Given sizes that shrink, stretch, enlarge and divide unevenly, when downscaled, then every byte matches the rule",
        arguments: [
            (64, 48, 8, 6), (64, 48, 7, 5), (33, 17, 4, 3), (10, 10, 3, 7), (5, 9, 12, 2),
            (3, 3, 7, 7), (1, 1, 1, 4), (100, 1, 9, 1), (1, 100, 1, 13), (40, 30, 40, 29),
        ])
    func matchesRule(size: (Int, Int, Int, Int)) {
        let (sw, sh, dw, dh) = size
        for alphaMode in 0..<3 {
            let source = Self.noise(sw, sh, seed: UInt64(sw * 1000 + sh * 10 + alphaMode), alphaMode: alphaMode)
            let result = source.downscaled(to: PixelSize(width: dw, height: dh))
            #expect(result.width == dw && result.height == dh)
            #expect(result.bytes == Self.reference(source, dw, dh), "\(sw)x\(sh) → \(dw)x\(dh), alpha mode \(alphaMode)")
        }
    }

    @Test("Given the target size equals the buffer size, when downscaled, then the same buffer is returned")
    func sameSizeIsIdentity() {
        let source = Self.noise(6, 4, seed: 7, alphaMode: 1)
        #expect(source.downscaled(to: PixelSize(width: 6, height: 4)) === source)
    }

    @Test("Given a non-positive target, when downscaled, then the result is 1 pixel on that side")
    func nonPositiveTargetClampsToOne() {
        let source = Self.noise(6, 4, seed: 9, alphaMode: 0)
        let result = source.downscaled(to: PixelSize(width: 0, height: -3))
        #expect(result.width == 1 && result.height == 1)
        #expect(result.bytes == Self.reference(source, 1, 1))
    }
}
