import Foundation
import WebImageCore

/// An HDR picture split into an SDR base and a gain map (SPEC H-5), the way libultrahdr's
/// encoder makes an Ultra HDR JPEG from an HDR-only input.
///
/// For an RGBA16 image described as PQ or HLG, per pixel the tone mapping of
/// ``HDRToSDRTransform`` gives both halves from the same codes: the HDR light `H` (linear sRGB
/// primaries, 1.0 = reference white 203 cd/m², gamut-mapped, not tone-mapped) and the 8-bit
/// sRGB SDR rendition, whose linear value `S` is what a reader multiplies. Then per map pixel,
/// over its `k`×`k` block of image pixels (``GainMapEncodeSettings/scale``; the last row and
/// column of blocks cover what is left):
///
/// - the block's means `H̄` and `S̄` in linear light (for a one-channel map, their luminances
///   with sRGB's weights 0.2126, 0.7152, 0.0722);
/// - the log2 gain `g = log2((H̄ + k_hdr) / (S̄ + k_sdr))`, so that a reader's
///   `(S̄ + k_sdr) · 2^g − k_hdr` gives back the block's mean HDR light exactly;
/// - for a map smaller than the image, the gains are corrected for the reader's bilinear
///   upsampling (``sharpen(_:width:height:channels:scale:)``);
/// - `min` and `max` are the smallest and largest `g` of the picture (per channel), the map
///   code is `round(255 · ((g − min) / (max − min))^γ)`;
/// - the headrooms are 0 (the base is SDR) and `max(max, 1/64)` in log2: a display with the
///   picture's largest gain as headroom gets the full HDR.
enum GainMapComputation {
    /// `image`'s SDR rendition (RGBA8 sRGB, no profile) with its computed ``/WebImageCore/Image/gainMap``,
    /// or `nil` when `image` is not RGBA16 PQ or HLG (then nothing is computed). The first
    /// frame only, as JPEG writes.
    static func split(_ image: Image, settings: GainMapEncodeSettings) -> Image? {
        guard image.pixelFormat == .rgba16, case .cicp(let cicp)? = image.colorProfile?.kind,
            let transform = HDRTransformCache.shared.transform(for: cicp, bits: 16)
        else { return nil }
        let source = image.pixels
        let width = source.width, height = source.height
        guard width > 0, height > 0 else { return nil }
        let k = settings.clampedScale, channels = settings.clampedChannelCount
        let mapWidth = (width + k - 1) / k, mapHeight = (height + k - 1) / k
        let baseOffset = Float(settings.clampedBaseOffset), alternateOffset = Float(settings.clampedAlternateOffset)
        let luma = SIMD3<Float>(0.2126, 0.7152, 0.0722)
        var gains = [Float](repeating: 0, count: mapWidth * mapHeight * channels)
        let sdr = source.withSamples16 { samples in
            PixelBuffer.make(width: width, height: height) { out in
                transform.withSplit { split in
                    Self.srgbToLinear.withUnsafeBufferPointer { decode in
                        var hdrSum = [SIMD3<Float>](repeating: .zero, count: mapWidth)
                        var sdrSum = [SIMD3<Float>](repeating: .zero, count: mapWidth)
                        for my in 0..<mapHeight {
                            let top = my * k, bottom = min(height, top + k)
                            for i in 0..<mapWidth {
                                hdrSum[i] = .zero
                                sdrSum[i] = .zero
                            }
                            for y in top..<bottom {
                                var p = y * width * 4
                                for x in 0..<width {
                                    let (h, s) = split(Int(samples[p]), Int(samples[p + 1]), Int(samples[p + 2]))
                                    out[p] = s.0
                                    out[p + 1] = s.1
                                    out[p + 2] = s.2
                                    out[p + 3] = PixelFormat.narrow(samples[p + 3])
                                    let column = x / k
                                    hdrSum[column] += h.replacing(with: 0, where: h .< 0)
                                    sdrSum[column] += SIMD3(decode[Int(s.0)], decode[Int(s.1)], decode[Int(s.2)])
                                    p += 4
                                }
                            }
                            for mx in 0..<mapWidth {
                                let count = Float((bottom - top) * (min(width, mx * k + k) - mx * k))
                                let h = hdrSum[mx] / count, s = sdrSum[mx] / count
                                let at = (my * mapWidth + mx) * channels
                                if channels == 1 {
                                    gains[at] = log2(((h * luma).sum() + alternateOffset) / ((s * luma).sum() + baseOffset))
                                } else {
                                    for c in 0..<3 { gains[at + c] = log2((h[c] + alternateOffset) / (s[c] + baseOffset)) }
                                }
                            }
                        }
                    }
                }
            }
        }
        if k > 1 { sharpen(&gains, width: mapWidth, height: mapHeight, channels: channels, scale: k) }
        let (map, metadata) = quantise(gains, width: mapWidth, height: mapHeight, channels: channels, settings: settings)
        let frame = ImageFrame(pixels: sdr, duration: image.frames[0].duration)
        return Image(
            frames: [frame], scale: image.scale, orientation: image.orientation, format: image.format, hasAlpha: image.hasAlpha,
            colorProfile: nil, gainMap: GainMap(pixels: map, channelCount: channels, metadata: metadata))
    }

    /// Corrects block gains `t` for the reader's bilinear upsampling, so that the mean over each
    /// block of the upsampled map is the block's gain again rather than a blur of it with its
    /// neighbours: three rounds of `m ← m + (t − B(m))`, where `B` is what a block-centred
    /// bilinear reader's upsampling followed by the block mean does to a map of scale `k`, the
    /// separable filter `[a, 1 − 2a, a]` with `a = (1/k) · Σ_d max(0, ½ − (d + ½)/k)` (1/8 at
    /// k = 4) and the map's edges repeated.
    static func sharpen(_ t: inout [Float], width: Int, height: Int, channels: Int, scale k: Int) {
        var sum = 0.0
        for d in 0..<k { sum += max(0, 0.5 - (Double(d) + 0.5) / Double(k)) }
        let a = Float(sum / Double(k))
        guard a > 0 else { return }
        let target = t
        var m = t, row = [Float](repeating: 0, count: t.count)
        for _ in 0..<3 {
            // B(m): horizontally into `row`, then vertically, then m += target − B(m).
            for y in 0..<height {
                for x in 0..<width {
                    let l = max(x - 1, 0), r = min(x + 1, width - 1)
                    for c in 0..<channels {
                        let i = (y * width + x) * channels + c
                        let sides: Float = m[(y * width + l) * channels + c] + m[(y * width + r) * channels + c]
                        row[i] = a * sides + (1 - 2 * a) * m[i]
                    }
                }
            }
            for y in 0..<height {
                let u = max(y - 1, 0), d = min(y + 1, height - 1)
                for x in 0..<width {
                    for c in 0..<channels {
                        let i = (y * width + x) * channels + c
                        let sides: Float = row[(u * width + x) * channels + c] + row[(d * width + x) * channels + c]
                        let blurred: Float = a * sides + (1 - 2 * a) * row[i]
                        m[i] += target[i] - blurred
                    }
                }
            }
        }
        t = m
    }

    /// The map's pixels and values from log2 gains (`channels` a map pixel).
    static func quantise(
        _ gains: [Float], width: Int, height: Int, channels: Int, settings: GainMapEncodeSettings
    ) -> (PixelBuffer, GainMapMetadata) {
        var low = [Float](repeating: .infinity, count: channels), high = [Float](repeating: -.infinity, count: channels)
        for (i, g) in gains.enumerated() where g.isFinite {
            low[i % channels] = min(low[i % channels], g)
            high[i % channels] = max(high[i % channels], g)
        }
        for c in 0..<channels {
            if !low[c].isFinite || !high[c].isFinite { (low[c], high[c]) = (0, 0) }
            // A flat map still gets a span, so that its codes mean something to every reader.
            if high[c] - low[c] < 1.0 / 256 { high[c] = low[c] + 1.0 / 256 }
        }
        let gamma = settings.clampedGamma
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for i in 0..<(width * height) {
                var codes: (UInt8, UInt8, UInt8) = (0, 0, 0)
                for c in 0..<channels {
                    let g = gains[i * channels + c]
                    let linear = g.isFinite ? min(1, max(0, Double((g - low[c]) / (high[c] - low[c])))) : 0
                    let code = UInt8((pow(linear, gamma) * 255).rounded())
                    if c == 0 { codes = (code, code, code) } else if c == 1 { codes.1 = code } else { codes.2 = code }
                }
                out[i * 4] = codes.0
                out[i * 4 + 1] = codes.1
                out[i * 4 + 2] = codes.2
                out[i * 4 + 3] = 255
            }
        }
        let metadataChannels = (0..<channels).map { c in
            GainMapMetadata.Channel(
                gainMapMin: Double(low[c]), gainMapMax: Double(high[c]), gamma: gamma, baseOffset: settings.clampedBaseOffset,
                alternateOffset: settings.clampedAlternateOffset)
        }
        let headroom = max(Double(high.max() ?? 0), 1.0 / 64)
        return (pixels, GainMapMetadata(channels: metadataChannels, baseHeadroom: 0, alternateHeadroom: headroom))
    }

    /// Linear light of each 8-bit sRGB code.
    static let srgbToLinear: [Float] = (0...255).map { Float(TransferCurve.decodeSRGB(Double($0) / 255)) }
}
