import Foundation

extension GainMap {
    /// The code points of ``hdrPixels(of:displayHeadroom:)``'s result: BT.709 primaries (the
    /// sRGB base's own), the PQ transfer (SMPTE ST 2084), RGB, full range — CICP 1/16/0.
    public static let hdrPixelsCICP = CICP(colorPrimaries: 1, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)

    /// The display headroom (linear, over SDR white) at which this map gives its full HDR
    /// rendition: `2^alternateHeadroom`, or the base headroom's when the base is the HDR one.
    public var maximumDisplayHeadroom: Double {
        pow(2, max(metadata.alternateHeadroom, metadata.baseHeadroom))
    }

    /// The HDR rendition of `base` (RGBA8, sRGB-encoded, of the size this map belongs to) at
    /// `displayHeadroom` (linear over SDR white; `nil`: ``maximumDisplayHeadroom``, the full
    /// HDR rendition) as ``PixelFormat/rgba16`` pixels coded with PQ in BT.709 primaries
    /// (``hdrPixelsCICP``), alpha kept (SPEC H-5).
    ///
    /// The rendition is ``hdrRendition(of:displayHeadroom:)``'s: the map sampled bilinearly at
    /// every base pixel, `G = 2^(w · (min + (max − min) · v^(1/γ)))` per channel,
    /// `HDR = (B + k_base) · G − k_alt` in linear light with 1.0 = SDR white. That linear value
    /// is placed at HDR reference white (ITU-R BT.2408: SDR white is 203 cd/m²), clipped to
    /// 0…10,000 cd/m², and coded with PQ's inverse EOTF at 16 bits.
    ///
    /// The gain goes through a 4,097-entry table over the map value per channel (libultrahdr
    /// uses 1,024), and PQ through a 8,193-entry table over `(L / 10,000)^(1/8)`, both
    /// interpolated linearly; their error is below a 16-bit step of PQ.
    public func hdrPixels(of base: PixelBuffer, displayHeadroom: Double? = nil) -> PixelBuffer {
        precondition(base.format == .rgba8, "hdrPixels needs an RGBA8 base")
        let width = base.width, height = base.height
        let headroom = displayHeadroom ?? maximumDisplayHeadroom
        let span = metadata.alternateHeadroom - metadata.baseHeadroom
        var weight = span > 0 ? min(1, max(0, (log2(max(headroom, 1e-6)) - metadata.baseHeadroom) / span)) : 1
        if metadata.baseIsHDR { weight = 1 - weight }
        let tables = HDRPixelTables(metadata: metadata, weight: weight)
        let mapWidth = pixels.width, mapHeight = pixels.height
        let fx = Double(mapWidth) / Double(width), fy = Double(mapHeight) / Double(height)
        // Horizontal sample positions are the same on every row.
        let columns = (0..<width).map { x -> (Int, Int, Float) in
            let mx = min(Double(mapWidth - 1), max(0, (Double(x) + 0.5) * fx - 0.5))
            let x0 = Int(mx)
            return (x0 * 4, min(mapWidth - 1, x0 + 1) * 4, Float(mx - Double(x0)))
        }
        let mapChannel = channelCount == 1 ? [0, 0, 0] : [0, 1, 2]
        let gainSteps = HDRPixelTables.gainSteps, pqSteps = HDRPixelTables.pqSteps
        let pqScale = Float(203.0 / 10_000)
        return base.bytes.withUnsafeBufferPointer { source in
            pixels.bytes.withUnsafeBufferPointer { map in
                tables.linear.withUnsafeBufferPointer { linear in
                    tables.gains.withUnsafeBufferPointer { gains in
                        tables.pqCodes.withUnsafeBufferPointer { pqCodes in
                            PixelBuffer.make16(width: width, height: height) { out in
                                for y in 0..<height {
                                    let my = min(Double(mapHeight - 1), max(0, (Double(y) + 0.5) * fy - 0.5))
                                    let y0 = Int(my), ty = Float(my - Double(y0))
                                    let row0 = y0 * mapWidth * 4, row1 = min(mapHeight - 1, y0 + 1) * mapWidth * 4
                                    for x in 0..<width {
                                        let (c0, c1, tx) = columns[x]
                                        let i = (y * width + x) * 4
                                        for c in 0..<3 {
                                            let m = mapChannel[c]
                                            let a = Float(map[row0 + c0 + m]), b = Float(map[row0 + c1 + m])
                                            let d = Float(map[row1 + c0 + m]), e = Float(map[row1 + c1 + m])
                                            let top = a + (b - a) * tx, bottom = d + (e - d) * tx
                                            // The gain: the channel's table at the map value, interpolated.
                                            let gp = min(max((top + (bottom - top) * ty) / 255, 0), 1) * Float(gainSteps)
                                            let gi = min(Int(gp), gainSteps - 1), g0 = c * (gainSteps + 1) + gi
                                            let gain = gains[g0] + (gains[g0 + 1] - gains[g0]) * (gp - Float(gi))
                                            let light = (linear[Int(source[i + c])] + tables.baseOffset[c]) * gain - tables.alternateOffset[c]
                                            // PQ: the table at (L / 10,000)^(1/8), interpolated.
                                            let t = min(max(light * pqScale, 0), 1).squareRoot().squareRoot().squareRoot()
                                            let pp = t * Float(pqSteps)
                                            let pi = min(Int(pp), pqSteps - 1)
                                            let code = pqCodes[pi] + (pqCodes[pi + 1] - pqCodes[pi]) * (pp - Float(pi))
                                            out[i + c] = UInt16(min(max(code.rounded(), 0), 65535))
                                        }
                                        out[i + 3] = UInt16(source[i + 3]) &* 257
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The tables ``GainMap/hdrPixels(of:displayHeadroom:)`` reads per pixel.
struct HDRPixelTables {
    static let gainSteps = 4096
    static let pqSteps = 8192
    /// sRGB code → linear (1.0 = SDR white).
    let linear: [Float]
    /// Per channel in turn, the gain at map values `0, 1/gainSteps, …, 1`.
    let gains: [Float]
    let baseOffset: [Float]
    let alternateOffset: [Float]
    /// PQ code (0…65535) at `t = (L · 203 / 10,000)^(1/8)` for `t = 0, 1/pqSteps, …, 1`.
    let pqCodes: [Float]

    init(metadata: GainMapMetadata, weight: Double) {
        linear = (0...255).map { code in
            let v = Double(code) / 255
            return Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
        }
        let channels = (0..<3).map { metadata.channels[min($0, metadata.channels.count - 1)] }
        gains = channels.flatMap { p in
            (0...Self.gainSteps).map { step in
                let v = Double(step) / Double(Self.gainSteps)
                let log2Gain = p.gainMapMin + (p.gainMapMax - p.gainMapMin) * pow(v, 1 / p.gamma)
                return Float(pow(2, log2Gain * weight))
            }
        }
        baseOffset = channels.map { Float($0.baseOffset) }
        alternateOffset = channels.map { Float($0.alternateOffset) }
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        pqCodes = (0...Self.pqSteps).map { step in
            let t = Double(step) / Double(Self.pqSteps)
            let y = pow(t, 8 * m1)
            return Float(pow((c1 + c2 * y) / (1 + c3 * y), m2) * 65535)
        }
    }
}
