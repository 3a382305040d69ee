// `webimage-bench colour ITERATIONS`: the cost of colour management (G-4) on a generated
// 12 MP picture (4000×3000, smooth ramps and noise), Adobe RGB (1998) and Display P3 profiles
// made with LittleCMS from their published primaries and curves.
//   - convert: the library's matrix/TRC path (ColorConversion.convertToSRGB) against
//     LittleCMS's cmsDoTransform (8-bit RGBA, relative colorimetric, alpha copied, its default
//     optimisations) on the same 48 MB buffer, both in place; median process-CPU ms.
//   - decode: full decode of the same picture as a q90 JPEG, untagged against tagged.
//   - thumbnail: decode to fit 500×500 and encode JPEG q80 (the service's task, in process),
//     Display P3 against untagged.
// `webimage-bench colour-sources DIR`: the same picture as q90 JPEGs for the service benchmark
// (scripts/measure-service-colour.sh): untagged.jpg, display-p3.jpg and adobe-rgb.jpg, the
// same pixel values with and without an embedded profile.
import CLCMS2
import Foundation
import WebImageCodecs
import WebImageCore

enum ColourBench {
    static func profile(name: String, red: (Double, Double), green: (Double, Double), blue: (Double, Double), curve: (Int32, [Double])) -> ColorProfile {
        var parameters = curve.1
        let tone = cmsBuildParametricToneCurve(nil, curve.0, &parameters)!
        defer { cmsFreeToneCurve(tone) }
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
            Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
        var curves: [OpaquePointer?] = [tone, tone, tone]
        let handle = curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }!
        defer { cmsCloseProfile(handle) }
        var size: cmsUInt32Number = 0
        _ = cmsSaveProfileToMem(handle, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        _ = cmsSaveProfileToMem(handle, &bytes, &size)
        return ColorProfile(icc: Data(bytes))!
    }

    static let adobeRGB = profile(
        name: "Adobe RGB", red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06), curve: (1, [563.0 / 256]))
    static let displayP3 = profile(
        name: "Display P3", red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060),
        curve: (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]))

    static func picture(width: Int, height: Int) -> PixelBuffer {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let noise = Int(state >> 60)
                    out[i] = UInt8(clamping: x * 255 / width + noise)
                    out[i + 1] = UInt8(clamping: y * 255 / height + noise)
                    out[i + 2] = UInt8(clamping: (x + y) * 255 / (width + height) + noise)
                    out[i + 3] = 255
                }
            }
        }
    }

    static func median(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        try body()
        var cpu: [Double] = []
        for _ in 0..<iterations {
            let c0 = clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID)
            try body()
            cpu.append(clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - c0)
        }
        cpu.sort()
        return cpu[cpu.count / 2]
    }

    /// Writes the 12 MP picture as q90 JPEGs, untagged and with each profile embedded, to `directory`.
    static func writeSources(to directory: URL) throws {
        let pixels = picture(width: 4000, height: 3000)
        let coder = JPEGCoder()
        for (file, profile) in [("untagged.jpg", nil), ("display-p3.jpg", displayP3), ("adobe-rgb.jpg", adobeRGB)] {
            let data = try coder.encode(
                Image(pixels: pixels, hasAlpha: false, colorProfile: profile), format: .jpeg, options: EncodeOptions(quality: 0.9))
            try data.write(to: directory.appendingPathComponent(file))
        }
    }

    static func run(iterations: Int) throws {
        let pixels = picture(width: 4000, height: 3000)
        let mpix = Double(pixels.width * pixels.height) / 1e6
        for (name, profile) in [("Adobe RGB", adobeRGB), ("Display P3", displayP3)] {
            // Both convert one 48 MB buffer in place (no allocation timed).
            var scratch = pixels.bytes
            let ours = median(iterations) {
                scratch.withUnsafeMutableBufferPointer { _ = ColorConversion.convertToSRGB($0, from: profile) }
            }
            let data = profile.iccData!
            let source = data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }!
            let sRGB = cmsCreate_sRGBProfile()!
            let transform = cmsCreateTransform(
                source, CLCMS2_TYPE_RGBA_8, sRGB, CLCMS2_TYPE_RGBA_8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC),
                cmsUInt32Number(cmsFLAGS_COPY_ALPHA))!
            var output = pixels.bytes
            let lcms = median(iterations) {
                output.withUnsafeMutableBytes { buffer in
                    cmsDoTransform(transform, buffer.baseAddress, buffer.baseAddress, cmsUInt32Number(pixels.width * pixels.height))
                }
            }
            cmsDeleteTransform(transform)
            cmsCloseProfile(source)
            cmsCloseProfile(sRGB)
            print(String(
                format: "convert %@ %.1f MP: ours cpu_ms=%.1f (%.0f Mpx/s), cmsDoTransform cpu_ms=%.1f (%.0f Mpx/s), speed-up %.1fx",
                name, mpix, ours, mpix / ours * 1e3, lcms, mpix / lcms * 1e3, lcms / ours))
        }
        let coder = JPEGCoder()
        let untagged = try coder.encode(Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.9))
        let plain = try median(iterations) { _ = try coder.decode(untagged, options: .default) }
        print(String(format: "decode 12 MP JPEG untagged cpu_ms=%.1f", plain))
        for (name, profile) in [("Adobe RGB", adobeRGB), ("Display P3", displayP3)] {
            let tagged = try coder.encode(
                Image(pixels: pixels, hasAlpha: false, colorProfile: profile), format: .jpeg, options: EncodeOptions(quality: 0.9))
            let time = try median(iterations) { _ = try coder.decode(tagged, options: .default) }
            print(String(format: "decode 12 MP JPEG %@ cpu_ms=%.1f (%.2fx untagged)", name, time, time / plain))
        }
        // The service's thumbnail task in process: decode to fit 500×500 (shrink on load, then
        // the conversion on the reduced pixels), encode JPEG q80.
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 500))
        let thumbnail = { (data: Data) throws in
            _ = try coder.encode(try coder.decode(data, options: box), format: .jpeg, options: EncodeOptions(quality: 0.8))
        }
        let plainThumbnail = try median(iterations) { try thumbnail(untagged) }
        print(String(format: "thumbnail 12 MP JPEG -> 500 px untagged cpu_ms=%.1f", plainThumbnail))
        let taggedP3 = try coder.encode(
            Image(pixels: pixels, hasAlpha: false, colorProfile: displayP3), format: .jpeg, options: EncodeOptions(quality: 0.9))
        let p3Thumbnail = try median(iterations) { try thumbnail(taggedP3) }
        print(String(format: "thumbnail 12 MP JPEG -> 500 px Display P3 cpu_ms=%.1f (%.3fx untagged)", p3Thumbnail, p3Thumbnail / plainThumbnail))
    }
}
