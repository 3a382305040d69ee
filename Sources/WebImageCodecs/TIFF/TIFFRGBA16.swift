import CTIFF
import WebImageCore

/// 16-bit TIFF pages read at 16 bits (SPEC H-1): contiguous unsigned RGB, RGB with alpha, grey
/// and grey with alpha, whatever the compression and strip/tile layout, straight into an
/// ``/WebImageCore/PixelFormat/rgba16`` buffer (associated alpha divided out).
extension TIFFMemoryFile {
    /// The current directory's layout when it is one of those; `nil` otherwise.
    struct Layout16 {
        var samplesPerPixel: Int
        var colour: Bool
        var whiteIsZero: Bool
        /// Whether the sample after the colour ones is alpha, and whether it is associated.
        var alpha: Bool
        var associated: Bool
    }

    func rgba16Layout() -> Layout16? {
        guard uint16(TIFFTAG_BITSPERSAMPLE) == 16, let photometric = uint16(TIFFTAG_PHOTOMETRIC).map(Int32.init),
            let samples = uint16(TIFFTAG_SAMPLESPERPIXEL).map(Int.init),
            Int32(uint16(TIFFTAG_PLANARCONFIG) ?? UInt16(PLANARCONFIG_CONTIG)) == PLANARCONFIG_CONTIG,
            Int32(uint16(TIFFTAG_SAMPLEFORMAT) ?? UInt16(SAMPLEFORMAT_UINT)) == SAMPLEFORMAT_UINT
        else { return nil }
        let colour = photometric == PHOTOMETRIC_RGB
        guard colour || photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE else { return nil }
        let colourSamples = colour ? 3 : 1
        guard samples >= colourSamples, samples <= 16 else { return nil }
        var extraCount: UInt16 = 0
        var extraKinds: UnsafeMutablePointer<UInt16>?
        let found = withUnsafeMutablePointer(to: &extraCount) { count in
            withUnsafeMutablePointer(to: &extraKinds) { kinds in
                withVaList([count, kinds]) { TIFFVGetFieldDefaulted(handle, UInt32(TIFFTAG_EXTRASAMPLES), $0) }
            }
        }
        var alpha = false, associated = false
        if samples > colourSamples, found == 1, extraCount >= 1, let kinds = extraKinds {
            let kind = Int32(kinds[0])
            alpha = kind == EXTRASAMPLE_ASSOCALPHA || kind == EXTRASAMPLE_UNASSALPHA
            associated = kind == EXTRASAMPLE_ASSOCALPHA
        }
        return Layout16(
            samplesPerPixel: samples, colour: colour, whiteIsZero: photometric == PHOTOMETRIC_MINISWHITE, alpha: alpha,
            associated: associated)
    }

    /// Decodes the current directory (an ``rgba16Layout()`` page) to RGBA16, rows as stored.
    /// `size` must have been checked against the limits (at 8 bytes a pixel).
    /// - Throws: `badImageData` for corrupt or truncated data or an inconsistent layout.
    func decodeRGBA16(size: PixelSize, layout: Layout16) throws -> PixelBuffer {
        let spp = layout.samplesPerPixel
        return try PixelBuffer.make16(width: size.width, height: size.height) { out in
            try forEachBlock(size: size, bytesPerPixel: spp * 2) { block, placement in
                let samples = block.bindMemory(to: UInt16.self, capacity: placement.rows * placement.rowBytes / 2)
                let blockWidth = placement.rowBytes / (spp * 2)
                for row in 0..<placement.rows {
                    var source = row * blockWidth * spp
                    var target = ((placement.top + row) * size.width + placement.left) * 4
                    for _ in 0..<placement.columns {
                        var pixel = SIMD4<UInt16>(0, 0, 0, 65_535)
                        if layout.colour {
                            pixel[0] = samples[source]; pixel[1] = samples[source + 1]; pixel[2] = samples[source + 2]
                        } else {
                            let grey = layout.whiteIsZero ? 65_535 - samples[source] : samples[source]
                            pixel[0] = grey; pixel[1] = grey; pixel[2] = grey
                        }
                        if layout.alpha { pixel[3] = samples[source + (layout.colour ? 3 : 1)] }
                        if layout.associated { pixel = Self.unassociated(pixel) }
                        out[target] = pixel[0]; out[target + 1] = pixel[1]; out[target + 2] = pixel[2]; out[target + 3] = pixel[3]
                        source += spp
                        target += 4
                    }
                }
            }
        }
    }

    /// Straight alpha from associated (premultiplied) 16-bit samples, rounded, clamped.
    private static func unassociated(_ p: SIMD4<UInt16>) -> SIMD4<UInt16> {
        let a = Int(p[3])
        guard a > 0 else { return .zero }
        func c(_ v: UInt16) -> UInt16 { UInt16(min(65_535, (Int(v) * 65_535 + a / 2) / a)) }
        return SIMD4(c(p[0]), c(p[1]), c(p[2]), p[3])
    }
}
