// Apple platforms only (SPEC B-3): on Linux this file compiles to nothing.
#if canImport(CoreGraphics)
    import CoreGraphics
    import Foundation
    import WebImage

    extension PixelBuffer {
        /// The pixels as a `CGImage`, sharing nothing mutable with the buffer.
        ///
        /// - RGBA8: 8 bits a component, straight alpha (`CGImageAlphaInfo.last`), in
        ///   `colorProfile`'s colour space (sRGB when `nil`: decoded images are sRGB unless
        ///   decoded with `.preserve`).
        /// - RGBA16 described as PQ or HLG (`DecodeOptions.dynamicRange` `.high`: a PQ/HLG
        ///   source's signal, or a gain-map photo's HDR rendition, CICP 1/16): an HDR image,
        ///   16 bits a component little endian (`CGImageByteOrderInfo.order16Little`), straight
        ///   alpha (`.last`, `.noneSkipLast` when opaque), in `itur_2100_PQ`, `itur_2100_HLG`,
        ///   `displayP3_PQ` or `displayP3_HLG`; BT.709 pixels are converted to BT.2020 primaries
        ///   first (`HDRBitmap`). Shown in HDR where the view asks for it (for example
        ///   `UIImageView.preferredImageDynamicRange`).
        /// - Other RGBA16: the nearest 8-bit values, as RGBA8.
        ///
        /// Apple platforms only. The HDR layout and conversion (`HDRBitmap`) are tested on
        /// Linux; the Core Graphics calls themselves have not been compiled or run by this
        /// project's Linux builds.
        public func makeCGImage(colorProfile: ColorProfile? = nil) -> CGImage? {
            if format == .rgba16 {
                if let bitmap = HDRBitmap(pixels: self, colorProfile: colorProfile) { return bitmap.makeCGImage() }
                return convertedToRGBA8().makeCGImage(colorProfile: colorProfile)
            }
            guard let provider = CGDataProvider(data: Data(bytes) as CFData) else { return nil }
            return CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
                space: ColorProfile.cgColorSpace(for: colorProfile),
                bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
                provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        }
    }

    extension HDRBitmap {
        /// The bitmap as a 16-bit-per-component `CGImage` in its named BT.2100 colour space
        /// (Apple platforms only).
        public func makeCGImage() -> CGImage? {
            guard let space = CGColorSpace(name: colorSpace.coreGraphicsName),
                let provider = CGDataProvider(data: Data(bytes) as CFData)
            else { return nil }
            let alpha: CGImageAlphaInfo = isOpaque ? .noneSkipLast : .last
            let bitmapInfo = CGBitmapInfo(rawValue: alpha.rawValue | CGImageByteOrderInfo.order16Little.rawValue)
            return CGImage(
                width: width, height: height, bitsPerComponent: HDRBitmap.bitsPerComponent,
                bitsPerPixel: HDRBitmap.bitsPerPixel, bytesPerRow: bytesPerRow, space: space, bitmapInfo: bitmapInfo,
                provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        }
    }

    extension HDRBitmap.ColorSpace {
        /// The Core Graphics name of the colour space (`CGColorSpace(name:)`).
        public var coreGraphicsName: CFString {
            switch self {
            case .itur2100PQ: return CGColorSpace.itur_2100_PQ
            case .itur2100HLG: return CGColorSpace.itur_2100_HLG
            case .displayP3PQ: return CGColorSpace.displayP3_PQ
            case .displayP3HLG: return CGColorSpace.displayP3_HLG
            }
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
