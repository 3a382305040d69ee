import WebImage

extension FrameStep {
    /// `unsharp_masking`: the 3×3 mask of ``UnsharpMasking`` on the resampled frame, in mode
    /// `always`, or in `auto` when the plan downscales and the request has no `sharpen`.
    static let unsharpMasking = FrameStep(name: "unsharp-masking") { pixels, plan, context in
        let settings = context.options.unsharpMasking.over(context.serviceUnsharpMasking)
        let downscaled = plan.scaledSize.width < plan.sourceCrop.width || plan.scaledSize.height < plan.sourceCrop.height
        switch settings.mode ?? .none {
        case .none: return pixels
        case .auto where !downscaled || context.options.sharpen > 0: return pixels
        case .auto, .always: break
        }
        let weight = settings.weight ?? 1, divider = settings.divider ?? 24
        return pixels.unsharpMasked(amount: Float(weight / divider))
    }
}

extension PixelBuffer {
    /// Each colour channel plus `amount` × (8 × itself − its 8 neighbours), edges repeated;
    /// alpha kept. A 16-bit buffer is narrowed to 8 bits first.
    func unsharpMasked(amount: Float) -> PixelBuffer {
        let source = convertedToRGBA8().bytes, width = width, height = height
        return PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                let rows = (max(0, y - 1), y, min(height - 1, y + 1))
                for x in 0..<width {
                    let columns = (max(0, x - 1), x, min(width - 1, x + 1))
                    let centre = (y * width + x) * 4
                    for channel in 0..<3 {
                        var sum = 0
                        for row in [rows.0, rows.1, rows.2] {
                            for column in [columns.0, columns.1, columns.2] { sum += Int(source[(row * width + column) * 4 + channel]) }
                        }
                        let value = Float(source[centre + channel])
                        let neighbours = Float(sum) - value
                        let sharpened = (value + amount * (8 * value - neighbours)).rounded()
                        out[centre + channel] = UInt8(min(255, max(0, sharpened)))
                    }
                    out[centre + 3] = source[centre + 3]
                }
            }
        }
    }
}
