import Foundation
import WebImageCore

extension TIFFCoder {
    /// The pages of a TIFF whose first page is 16-bit, decoded to
    /// ``/WebImageCore/PixelFormat/rgba16`` when the options ask for it (SPEC H-1): 16-bit
    /// pages at 16 bits (full size, then turned and fitted in 16 bits), other pages widened; the
    /// ICC profile attached, not converted. `nil` when the first page is not a 16-bit layout read
    /// here or the options want 8 bits: the caller decodes as usual.
    func decodeHighBitDepth(_ data: Data, file: TIFFMemoryFile, pages: [TIFFPage], options: DecodeOptions) throws -> Image? {
        guard options.decodedPixelFormat == .rgba16, !pages[0].isCMYK else { return nil }
        try file.select(pages[0].directory)
        guard file.rgba16Layout() != nil else { return nil }
        try options.limits.checkBudget(frames: pages.count, of: pages[0].size, format: .rgba16)
        let first = pages[0]
        let output = FrameOutput(stored: first.size, orientation: first.orientation, options: options)
        let duration = pages.count > 1 ? FrameDelay.replacement : 0
        var frames: [ImageFrame] = []
        frames.reserveCapacity(pages.count)
        for (index, page) in pages.enumerated() {
            try file.select(page.directory)
            let pixels: PixelBuffer
            if let layout = file.rgba16Layout() {
                try options.limits.checkBudget(frames: 1, of: page.size, format: .rgba16)
                pixels = try file.decodeRGBA16(size: page.size, layout: layout)
            } else {
                pixels = try file.decode(page, for: output.size, cmykProfile: nil).convertedToRGBA16()
            }
            let frame = TIFFCoder.frame(pixels, of: page, isFirst: index == 0, output: output, options: options)
            frames.append(ImageFrame(pixels: frame, duration: duration))
        }
        let fitted = pages.contains { $0.size != first.size && PixelSize(width: $0.size.height, height: $0.size.width) != first.size }
        let profile = options.colorManagement == .ignore ? nil : TIFFICCProfile.read(data)
        return Image(
            frames: frames, scale: options.imageScale, orientation: output.reportedOrientation, format: .tiff,
            loopCount: 0, hasAlpha: pages.contains { $0.hasAlpha } || fitted, colorProfile: profile, gainMap: nil)
    }
}
