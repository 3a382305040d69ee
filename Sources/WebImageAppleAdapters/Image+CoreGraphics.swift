// Apple platforms only (SPEC B-3): on Linux this file compiles to nothing.
#if canImport(CoreGraphics)
    import CoreGraphics
    import Foundation
    import WebImage

    extension PixelBuffer {
        /// The pixels as a `CGImage` (RGBA8, straight alpha: `CGImageAlphaInfo.last`), sharing
        /// nothing mutable with the buffer, in `colorProfile`'s colour space (sRGB when `nil`:
        /// decoded images are sRGB unless decoded with `.preserve`).
        public func makeCGImage(colorProfile: ColorProfile? = nil) -> CGImage? {
            // RGBA16 is shown through its nearest 8-bit values (SPEC H-1).
            if format == .rgba16 { return convertedToRGBA8().makeCGImage(colorProfile: colorProfile) }
            guard let provider = CGDataProvider(data: Data(bytes) as CFData) else { return nil }
            return CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
                space: ColorProfile.cgColorSpace(for: colorProfile),
                bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
                provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        }
    }

    extension Image {
        /// The first frame as a `CGImage` in the image's colour space (``Image/colorProfile``).
        public func makeCGImage() -> CGImage? { pixels.makeCGImage(colorProfile: colorProfile) }
    }

    extension ColorProfile {
        /// The Core Graphics colour space for RGBA pixels described by `profile`: the ICC
        /// profile itself, the named space of coded primaries (Display P3, BT.2020, BT.2100 PQ
        /// and HLG), and sRGB for `nil`, declared sRGB, PNG gamma descriptions and any
        /// profile that is not RGB (such pixels were converted while decoding).
        public static func cgColorSpace(for profile: ColorProfile?) -> CGColorSpace {
            let sRGB = CGColorSpace(name: CGColorSpace.sRGB) ?? CGColorSpaceCreateDeviceRGB()
            guard let profile, profile.colorModel == .rgb else { return sRGB }
            switch profile.kind {
            case .icc(let data):
                guard let space = CGColorSpace(iccData: data as CFData), space.numberOfComponents == 3 else { return sRGB }
                return space
            case .cicp(let cicp):
                let name: CFString
                switch (cicp.colorPrimaries, cicp.transferCharacteristics) {
                case (12, _): name = CGColorSpace.displayP3
                case (9, 16): name = CGColorSpace.itur_2100_PQ
                case (9, 18): name = CGColorSpace.itur_2100_HLG
                case (9, _): name = CGColorSpace.itur_2020
                default: return sRGB
                }
                return CGColorSpace(name: name) ?? sRGB
            case .sRGB, .gamma:
                return sRGB
            }
        }
    }
#endif
