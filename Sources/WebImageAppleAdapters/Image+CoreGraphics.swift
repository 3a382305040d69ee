// Apple platforms only (SPEC B-3): on Linux this file compiles to nothing.
#if canImport(CoreGraphics)
    import CoreGraphics
    import Foundation
    import WebImage

    extension PixelBuffer {
        /// The pixels as a `CGImage` (RGBA8, straight alpha: `CGImageAlphaInfo.last`), sharing
        /// nothing mutable with the buffer.
        public func makeCGImage() -> CGImage? {
            guard let provider = CGDataProvider(data: Data(bytes) as CFData) else { return nil }
            return CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
                space: CGColorSpaceCreateDeviceRGB(),
                bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
                provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        }
    }
#endif
