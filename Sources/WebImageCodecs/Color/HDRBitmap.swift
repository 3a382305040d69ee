import Foundation
import WebImageCore

/// RGBA16 PQ or HLG pixels laid out for graphics APIs that take 16-bit integer components in a
/// named ITU-R BT.2100 colour space: Core Graphics' `CGImage` in `itur_2100_PQ`, `itur_2100_HLG`,
/// `displayP3_PQ` or `displayP3_HLG`, which the Apple adapters make from it
/// (`PixelBuffer.makeCGImage(colorProfile:)`, SPEC H-5).
///
/// This part is platform-independent so that the choice of colour space, the byte layout and the
/// conversion are the same, and tested, everywhere; only the final Core Graphics calls are
/// Apple-only.
///
/// - **Which pixels.** ``/WebImageCore/PixelFormat/rgba16`` buffers described by a CICP with the
///   PQ (16) or HLG (18) transfer: what ``/WebImageCore/DynamicRange/high`` decodes from PQ/HLG
///   sources and from gain-map images (CICP 1/16, ``/WebImageCore/GainMap/hdrPixelsCICP``).
///   Anything else has no HDR bitmap (`nil`).
/// - **Which colour space.** BT.2020 primaries (9, and unspecified, 2, read as BT.2020 as the
///   tone mapping reads it) and Display P3 (12) keep their samples: the named space has the same
///   primaries and transfer. No named space has BT.709 primaries with PQ or HLG, so BT.709 (1)
///   and DCI-P3 (11) pixels are converted to BT.2020 primaries in linear light (BT.2020 contains
///   both gamuts) and coded again with the same transfer: the signal stays
///   PQ (absolute luminance, nothing to guess about where SDR white lands) or HLG (the matrix is
///   applied to scene light, as ITU-R BT.2087 converts BT.709 to BT.2020; it keeps luminance, so
///   the HLG OOTF gives the same light). Other primaries have no HDR bitmap.
/// - **Layout.** 16 bits a component, little endian (Core Graphics' `order16Little`), RGBA with
///   straight alpha last (`CGImageAlphaInfo.last`, or `.noneSkipLast` when ``isOpaque``), rows
///   packed.
public struct HDRBitmap: Sendable {
    /// The colour spaces of the bitmap: BT.2100's transfers with BT.2020 or Display P3 primaries.
    public enum ColorSpace: String, Sendable, Hashable, CaseIterable {
        /// BT.2020 primaries, PQ (Core Graphics' `itur_2100_PQ`).
        case itur2100PQ
        /// BT.2020 primaries, HLG (`itur_2100_HLG`).
        case itur2100HLG
        /// Display P3 primaries, PQ (`displayP3_PQ`).
        case displayP3PQ
        /// Display P3 primaries, HLG (`displayP3_HLG`).
        case displayP3HLG
    }

    /// Bits in one component.
    public static let bitsPerComponent = 16
    /// Bits in one pixel (four components).
    public static let bitsPerPixel = 64

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The colour space the samples are coded in.
    public let colorSpace: ColorSpace
    /// RGBA samples, 16 bits little endian, straight alpha, rows top to bottom without padding.
    public let bytes: [UInt8]
    /// Whether every alpha sample is 65535.
    public let isOpaque: Bool
    /// Whether the samples were converted to BT.2020 primaries (from BT.709 or DCI-P3).
    public let primariesConverted: Bool

    /// Bytes in one row.
    public var bytesPerRow: Int { width * 8 }

    /// The HDR bitmap of `pixels` described by `colorProfile`, or `nil` when they are not RGBA16
    /// with a PQ or HLG CICP in primaries the bitmap can carry (see ``HDRBitmap``).
    public init?(pixels: PixelBuffer, colorProfile: ColorProfile?) {
        guard pixels.format == .rgba16, let profile = colorProfile, case .cicp(let cicp) = profile.kind else { return nil }
        let pq: Bool
        switch cicp.transferCharacteristics {
        case 16: pq = true
        case 18: pq = false
        default: return nil
        }
        let conversion: Matrix3?
        switch cicp.colorPrimaries {
        case 2, 9:
            colorSpace = pq ? .itur2100PQ : .itur2100HLG
            conversion = nil
        case 12:
            colorSpace = pq ? .displayP3PQ : .displayP3HLG
            conversion = nil
        default:
            guard let source = CICPColorimetry.primaries(cicp.colorPrimaries), let bt2020 = CICPColorimetry.primaries(9),
                let matrix = RGBPrimaries.conversion(from: source, to: bt2020)
            else { return nil }
            colorSpace = pq ? .itur2100PQ : .itur2100HLG
            conversion = matrix
        }
        width = pixels.width
        height = pixels.height
        primariesConverted = conversion != nil
        isOpaque = pixels.withSamples16 { samples in
            var i = 3
            while i < samples.count {
                if samples[i] != .max { return false }
                i += 4
            }
            return true
        }
        if let conversion {
            let tables = pq ? HDRBitmapTables.pq : HDRBitmapTables.hlg
            bytes = Self.converted(pixels, matrix: conversion, tables: tables)
        } else {
            bytes = Self.littleEndian(pixels)
        }
    }

    /// The samples as they are, in little-endian byte order: the buffer's own bytes on a
    /// little-endian machine (no copy).
    static func littleEndian(_ pixels: PixelBuffer) -> [UInt8] {
        #if _endian(little)
            return pixels.bytes
        #else
            return pixels.withSamples16 { samples in
                [UInt8](unsafeUninitializedCapacity: samples.count * 2) { out, initialized in
                    for (i, sample) in samples.enumerated() {
                        out[2 * i] = UInt8(truncatingIfNeeded: sample)
                        out[2 * i + 1] = UInt8(truncatingIfNeeded: sample >> 8)
                    }
                    initialized = samples.count * 2
                }
            }
        #endif
    }

    /// The samples converted by `matrix` in linear light (decoded and coded again through
    /// `tables`), little endian; alpha kept.
    static func converted(_ pixels: PixelBuffer, matrix: Matrix3, tables: HDRBitmapTables) -> [UInt8] {
        let m = matrix.m.map { Float($0) }
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let steps = HDRBitmapTables.encodeSteps, scale = Float(HDRBitmapTables.encodeSteps)
        return pixels.withSamples16 { samples in
            tables.decode.withUnsafeBufferPointer { decode in
                tables.encode.withUnsafeBufferPointer { encode in
                    [UInt8](unsafeUninitializedCapacity: samples.count * 2) { bytes, initialized in
                        guard let out = UnsafeMutableRawPointer(bytes.baseAddress) else { return }
                        // The table at light^(1/8), interpolated; rounded half up.
                        @inline(__always) func code(_ light: Float) -> UInt16 {
                            let t = min(max(light, 0), 1).squareRoot().squareRoot().squareRoot() * scale
                            let i = min(Int(t), steps - 1)
                            let value = encode[i] + (encode[i + 1] - encode[i]) * (t - Float(i))
                            return UInt16(min(max(value, 0), 65_535) + 0.5)
                        }
                        var i = 0
                        while i < samples.count {
                            let r = decode[Int(samples[i])], g = decode[Int(samples[i + 1])], b = decode[Int(samples[i + 2])]
                            out.storeBytes(of: code(m0 * r + m1 * g + m2 * b).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
                            out.storeBytes(of: code(m3 * r + m4 * g + m5 * b).littleEndian, toByteOffset: 2 * i + 2, as: UInt16.self)
                            out.storeBytes(of: code(m6 * r + m7 * g + m8 * b).littleEndian, toByteOffset: 2 * i + 4, as: UInt16.self)
                            out.storeBytes(of: samples[i + 3].littleEndian, toByteOffset: 2 * i + 6, as: UInt16.self)
                            i += 4
                        }
                        initialized = samples.count * 2
                    }
                }
            }
        }
    }
}

/// One transfer's tables for ``HDRBitmap``'s primaries conversion: every 16-bit code to linear
/// light (PQ: display light over 10,000 cd/m²; HLG: normalised scene light), and linear light
/// back to codes at `light = (k / encodeSteps)^8`, interpolated between entries (the eighth root
/// spreads the entries over the dark end, where both curves are steep).
struct HDRBitmapTables: Sendable {
    static let encodeSteps = 8192
    let decode: [Float]
    let encode: [Float]

    init(toLinear: (Double) -> Double, fromLinear: (Double) -> Double) {
        decode = (0...65_535).map { Float(toLinear(Double($0) / 65_535)) }
        encode = (0...Self.encodeSteps).map { step in
            let t = Double(step) / Double(Self.encodeSteps)
            let light = t * t * t * t * t * t * t * t
            return Float(fromLinear(light) * 65_535)
        }
    }

    static let pq = HDRBitmapTables(
        toLinear: { HDRTransfer.pqToLuminance($0) / HDRTransfer.pqPeak },
        fromLinear: { HDRTransfer.luminanceToPQ($0 * HDRTransfer.pqPeak) })
    static let hlg = HDRBitmapTables(toLinear: HDRTransfer.hlgToScene, fromLinear: HDRTransfer.sceneToHLG)
}
