import Foundation
import WebImageCore

/// PQ or HLG pixels to 8-bit sRGB, following ITU-R BT.2408 (H-4). Built once per transfer,
/// primaries and input bit depth (``HDRTransformCache``) and shared read-only by every thread.
///
/// Per pixel, in linear light relative to HDR reference white (203 cd/m² = 1):
/// 1. **Signal to light**, one table per code value: PQ's EOTF divided by 203 cd/m²; for HLG the
///    inverse OETF (scene light), then BT.2100's OOTF at a 1,000 cd/m² nominal peak, system gamma
///    1.2: `F = 1000 · Ys^0.2 · E / 203`, with `Ys` the scene luminance (a table over `√Ys`), so
///    that HLG's 0.75 lands at 203 cd/m².
/// 2. **Primaries**: a 3×3 matrix to linear sRGB (BT.709 primaries, D65), which keeps luminance.
/// 3. **Gamut**: a hue-preserving soft clip. Saturation `s = 1 − min(R, G, B) / Y` (0 grey, 1 on
///    the sRGB boundary, above 1 outside it) is compressed with ``HDRRollOff`` from 0.9 up so that
///    the most saturated colour of the source primaries lands on the boundary; the pixel moves on
///    the line to grey of the same luminance (`c' = Y + s'/s · (c − Y)`), keeping luminance and
///    hue.
/// 4. **Tone**: the largest channel `m` passes below 0.8 and rolls off above it (``HDRRollOff``,
///    reaching 1 at the source's peak: 10,000 cd/m² for PQ, 1,000 cd/m² for HLG); all three
///    channels are scaled by `T(m) / m`, so hue and saturation stay and no channel exceeds white.
/// 5. **Encoding**: sRGB's transfer, a table of 16,385 steps to 8 bits. Alpha is rescaled.
struct HDRToSDRTransform: Sendable {
    /// The HDR transfer of the source.
    enum Transfer: Sendable, Hashable {
        case pq
        case hlg
    }

    let transfer: Transfer
    /// Bits of the input code values (8 for RGBA8 input, 10, 12 or 16 for 16-bit input).
    let inputBits: Int
    /// Light for each table index (see ``indexShift``): PQ relative to reference white, HLG
    /// scene light 0…1.
    private let light: [Float]
    /// Input codes are indexed as `(code + indexRounding) >> indexShift`, so that no table is
    /// larger than 4,097 entries.
    private let indexShift: Int
    private let indexRounding: Int
    /// HLG only: the OOTF gain (times 1000 / 203) at `√Ys` = index / 1024, 1,026 entries.
    private let ootf: [Float]
    /// Luminance coefficients of the source primaries (HLG's `Ys`).
    private let sourceLuma: SIMD3<Float>
    /// Source linear RGB to linear sRGB, by rows.
    private let row0: SIMD3<Float>, row1: SIMD3<Float>, row2: SIMD3<Float>
    /// sRGB's luminance coefficients.
    private let outputLuma: SIMD3<Float>
    /// The saturation roll-off, `nil` when the source primaries lie inside sRGB's.
    private let chroma: HDRRollOff?
    private let tone: HDRRollOff
    /// Alpha codes to 8 bits: `(a · alphaScale + 2²³) >> 24`.
    private let alphaScale: Int

    /// sRGB encoding of linear light `i / 16384`, `i` in 0…16384.
    private static let encode: [UInt8] = (0...16_384).map {
        UInt8((TransferCurve.encodeSRGB(Double($0) / 16_384) * 255).rounded())
    }

    /// The transform for a source with `cicp`'s transfer (PQ or HLG) and primaries, whose RGB
    /// code values have `inputBits` bits; `nil` for other transfers and for primaries the
    /// library does not know. Unspecified primaries (2) are read as BT.2020, which BT.2100 uses.
    init?(cicp: CICP, inputBits: Int) {
        switch cicp.transferCharacteristics {
        case 16: transfer = .pq
        case 18: transfer = .hlg
        default: return nil
        }
        let code = cicp.colorPrimaries == 2 ? 9 : cicp.colorPrimaries
        guard (1...16).contains(inputBits), let primaries = CICPColorimetry.primaries(code),
            let toXYZ = RGBPrimaries.toXYZ(primaries), let sRGBToXYZ = RGBPrimaries.toXYZ(.sRGB),
            let matrix = RGBPrimaries.conversion(from: primaries, to: .sRGB)
        else { return nil }
        self.inputBits = inputBits
        let maxCode = (1 << inputBits) - 1
        indexShift = max(0, inputBits - 12)
        indexRounding = indexShift > 0 ? 1 << (indexShift - 1) : 0
        let entries = (maxCode + indexRounding) >> indexShift + 1
        let transfer = self.transfer
        light = (0..<entries).map { index in
            let signal = min(1, Double(index << (inputBits > 12 ? inputBits - 12 : 0)) / Double(maxCode))
            switch transfer {
            case .pq: return Float(HDRTransfer.pqToLuminance(signal) / HDRTransfer.referenceWhite)
            case .hlg: return Float(HDRTransfer.hlgToScene(signal))
            }
        }
        if transfer == .hlg {
            let gain = HDRTransfer.hlgNominalPeak / HDRTransfer.referenceWhite
            let exponent = 2 * (HDRTransfer.hlgSystemGamma - 1)  // Ys^(γ−1) = (√Ys)^(2(γ−1))
            ootf = (0...1025).map { Float(gain * pow(min(Double($0), 1024) / 1024, exponent)) }
        } else {
            ootf = []
        }
        sourceLuma = SIMD3(Float(toXYZ[1, 0]), Float(toXYZ[1, 1]), Float(toXYZ[1, 2]))
        outputLuma = SIMD3(Float(sRGBToXYZ[1, 0]), Float(sRGBToXYZ[1, 1]), Float(sRGBToXYZ[1, 2]))
        row0 = SIMD3(Float(matrix[0, 0]), Float(matrix[0, 1]), Float(matrix[0, 2]))
        row1 = SIMD3(Float(matrix[1, 0]), Float(matrix[1, 1]), Float(matrix[1, 2]))
        row2 = SIMD3(Float(matrix[2, 0]), Float(matrix[2, 1]), Float(matrix[2, 2]))
        // The most saturated source colours are its primaries (saturation is quasi-convex).
        let outputY = [sRGBToXYZ[1, 0], sRGBToXYZ[1, 1], sRGBToXYZ[1, 2]]
        let saturations = (0..<3).map { column -> Double in
            let mapped = (0..<3).map { matrix[$0, column] }
            let y = zip(mapped, outputY).map { $0 * $1 }.reduce(0, +)
            return y > 0 ? 1 - (mapped.min() ?? 0) / y : 1
        }
        let widest = saturations.max() ?? 1
        chroma = widest > 1.0001 ? HDRRollOff(knee: HDRRollOff.chromaKnee, maximum: widest) : nil
        let peak = transfer == .pq ? HDRTransfer.pqPeak : HDRTransfer.hlgNominalPeak
        tone = HDRRollOff(knee: HDRRollOff.toneKnee, maximum: peak / HDRTransfer.referenceWhite)
        alphaScale = (255 << 24 + maxCode / 2) / maxCode
    }

    /// Linear sRGB (relative to SDR white) of source codes `r`, `g`, `b`, before encoding.
    @inline(__always)
    func linearSRGB(_ r: Int, _ g: Int, _ b: Int, light: UnsafePointer<Float>, ootf: UnsafePointer<Float>?) -> SIMD3<Float> {
        toneMapped(hdrLinear(r, g, b, light: light, ootf: ootf))
    }

    /// Step 4 alone: the tone roll-off of `o`, linear sRGB from ``hdrLinear(_:_:_:light:ootf:)``.
    @inline(__always)
    func toneMapped(_ o: SIMD3<Float>) -> SIMD3<Float> {
        let m = o.max()
        return m > tone.knee ? o * (tone(m) / m) : o
    }

    /// Steps 1 to 3: the HDR light of source codes `r`, `g`, `b` in linear sRGB primaries
    /// relative to reference white (1.0 = 203 cd/m², above 1 brighter), gamut-mapped into sRGB
    /// and not tone-mapped (each channel at least 0).
    @inline(__always)
    func hdrLinear(_ r: Int, _ g: Int, _ b: Int, light: UnsafePointer<Float>, ootf: UnsafePointer<Float>?) -> SIMD3<Float> {
        let last = self.light.count - 1
        var c = SIMD3<Float>(
            light[min((r &+ indexRounding) &>> indexShift, last)], light[min((g &+ indexRounding) &>> indexShift, last)],
            light[min((b &+ indexRounding) &>> indexShift, last)])
        if let ootf {
            let ys = min(max((c * sourceLuma).sum(), 0), 1)
            let position = ys.squareRoot() * 1024
            let i = Int(position)
            let fraction = position - Float(i)
            c *= ootf[i] + fraction * (ootf[i + 1] - ootf[i])
        }
        var o = SIMD3<Float>((c * row0).sum(), (c * row1).sum(), (c * row2).sum())
        if let chroma {
            let y = (o * outputLuma).sum()
            let least = o.min()
            if y > 0, least < (1 - chroma.knee) * y {
                let s = 1 - least / y
                o = y + (chroma(s) / s) * (o - y)
            } else if y <= 0 {
                o = .zero
            }
        }
        return o
    }

    /// The 8-bit sRGB code of linear `v` (clamped to 0…1).
    @inline(__always)
    private static func encoded(_ v: Float, _ table: UnsafePointer<UInt8>) -> UInt8 {
        table[Int(min(max(v, 0), 1) * 16_384 + 0.5)]
    }

    /// Converts `count` RGBA pixels of `inputBits`-bit codes in `UInt16`s (native byte order)
    /// to RGBA8 sRGB.
    func apply(_ source: UnsafePointer<UInt16>, _ destination: UnsafeMutablePointer<UInt8>, count: Int) {
        run { pixel in
            for i in 0..<count {
                let p = i &* 4
                let o = pixel(Int(source[p]), Int(source[p + 1]), Int(source[p + 2]))
                destination[p] = o.0
                destination[p + 1] = o.1
                destination[p + 2] = o.2
                destination[p + 3] = UInt8(truncatingIfNeeded: (Int(source[p + 3]) &* alphaScale &+ (1 << 23)) &>> 24)
            }
        }
    }

    /// Converts `count` RGBA8 pixels of an 8-bit PQ/HLG signal to sRGB; `source` and
    /// `destination` may be the same buffer. Needs a transform made for 8-bit input.
    func apply(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, count: Int) {
        run { pixel in
            for i in 0..<count {
                let p = i &* 4
                let alpha = source[p + 3]
                let o = pixel(Int(source[p]), Int(source[p + 1]), Int(source[p + 2]))
                destination[p] = o.0
                destination[p + 1] = o.1
                destination[p + 2] = o.2
                destination[p + 3] = alpha
            }
        }
    }

    /// Runs `body` with a function from source codes to their HDR light
    /// (``hdrLinear(_:_:_:light:ootf:)``) and their 8-bit sRGB codes (the SDR rendition, as
    /// the 16-bit `apply` writes it): the two halves of a gain-map
    /// JPEG computed from HDR pixels.
    func withSplit<T>(_ body: ((Int, Int, Int) -> (hdr: SIMD3<Float>, sdr: (UInt8, UInt8, UInt8))) -> T) -> T {
        light.withUnsafeBufferPointer { light in
            ootf.withUnsafeBufferPointer { ootf in
                Self.encode.withUnsafeBufferPointer { table in
                    let l = light.baseAddress!, t = table.baseAddress!
                    let o = ootf.isEmpty ? nil : ootf.baseAddress
                    return body { r, g, b in
                        let h = hdrLinear(r, g, b, light: l, ootf: o)
                        let c = toneMapped(h)
                        return (h, (Self.encoded(c.x, t), Self.encoded(c.y, t), Self.encoded(c.z, t)))
                    }
                }
            }
        }
    }

    /// Runs `body` with a function from source codes to 8-bit sRGB over this transform's tables.
    private func run(_ body: ((Int, Int, Int) -> (UInt8, UInt8, UInt8)) -> Void) {
        light.withUnsafeBufferPointer { light in
            ootf.withUnsafeBufferPointer { ootf in
                Self.encode.withUnsafeBufferPointer { table in
                    let l = light.baseAddress!, t = table.baseAddress!
                    let o = ootf.isEmpty ? nil : ootf.baseAddress
                    body { r, g, b in
                        let c = linearSRGB(r, g, b, light: l, ootf: o)
                        return (Self.encoded(c.x, t), Self.encoded(c.y, t), Self.encoded(c.z, t))
                    }
                }
            }
        }
    }
}
