// `webimage-bench colour ITERATIONS`: the cost of colour management (G-4) on a generated
// 12 MP picture (4000×3000, smooth ramps and noise), Adobe RGB (1998) and Display P3 profiles
// made with LittleCMS from their published primaries and curves.
//   - convert: the library's matrix/TRC path (ColorConversion.convertToSRGB) against
//     LittleCMS's cmsDoTransform (8-bit RGBA, relative colorimetric, alpha copied, its default
//     optimisations) on the same 48 MB buffer, both in place; median process-CPU ms.
//   - decode: full decode of the same picture as a q90 JPEG, untagged against tagged.
//   - thumbnail: decode to fit 500×500 and encode JPEG q80 (the service's task, in process),
//     Display P3 against untagged.
// The variants of each measurement are interleaved round by round (the order rotating), and
// ratios are the median over rounds of the ratio within a round.
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

    /// Runs `bodies` once each to warm up, then `iterations` rounds of all of them in turn (the
    /// order rotating each round, so that a loaded machine's slow moments fall on all alike).
    /// Returns each body's median process-CPU milliseconds and, for every body, the median over
    /// rounds of its time divided by the first body's time in the same round.
    static func interleaved(_ iterations: Int, _ bodies: [() throws -> Void]) throws -> (medians: [Double], ratios: [Double]) {
        for body in bodies { try body() }
        var cpu = [[Double]](repeating: [], count: bodies.count)
        for round in 0..<iterations {
            for k in 0..<bodies.count {
                let index = (k + round) % bodies.count
                let c0 = clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID)
                try bodies[index]()
                cpu[index].append(clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - c0)
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let ratios = cpu.map { times in median(zip(times, cpu[0]).map { $0 / $1 }) }
        return (cpu.map(median), ratios)
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
            // Both convert one 48 MB buffer in place (no allocation timed), interleaved.
            var scratch = pixels.bytes
            let data = profile.iccData!
            let source = data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }!
            let sRGB = cmsCreate_sRGBProfile()!
            let transform = cmsCreateTransform(
                source, CLCMS2_TYPE_RGBA_8, sRGB, CLCMS2_TYPE_RGBA_8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC),
                cmsUInt32Number(cmsFLAGS_COPY_ALPHA))!
            var output = pixels.bytes
            let (medians, ratios) = try interleaved(iterations, [
                {
                    output.withUnsafeMutableBytes { buffer in
                        cmsDoTransform(transform, buffer.baseAddress, buffer.baseAddress, cmsUInt32Number(pixels.width * pixels.height))
                    }
                },
                { scratch.withUnsafeMutableBufferPointer { _ = ColorConversion.convertToSRGB($0, from: profile) } },
            ])
            cmsDeleteTransform(transform)
            cmsCloseProfile(source)
            cmsCloseProfile(sRGB)
            let (lcms, ours) = (medians[0], medians[1])
            print(String(
                format: "convert %@ %.1f MP: ours cpu_ms=%.1f (%.0f Mpx/s), cmsDoTransform cpu_ms=%.1f (%.0f Mpx/s), speed-up %.1fx (median of rounds %.1fx)",
                name, mpix, ours, mpix / ours * 1e3, lcms, mpix / lcms * 1e3, lcms / ours, 1 / ratios[1]))
        }
        let coder = JPEGCoder()
        let untagged = try coder.encode(Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.9))
        let tagged = try [adobeRGB, displayP3].map {
            try coder.encode(Image(pixels: pixels, hasAlpha: false, colorProfile: $0), format: .jpeg, options: EncodeOptions(quality: 0.9))
        }
        let decodes = try interleaved(iterations, ([untagged] + tagged).map { data in { _ = try coder.decode(data, options: .default) } })
        print(String(format: "decode 12 MP JPEG untagged cpu_ms=%.1f", decodes.medians[0]))
        for (index, name) in ["Adobe RGB", "Display P3"].enumerated() {
            print(String(
                format: "decode 12 MP JPEG %@ cpu_ms=%.1f (%.2fx untagged, median of rounds)", name, decodes.medians[index + 1],
                decodes.ratios[index + 1]))
        }
        // The service's thumbnail task in process: decode to fit 500×500 (shrink on load, then
        // the conversion on the reduced pixels), encode JPEG q80.
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 500))
        let thumbnails = try interleaved(iterations, [untagged, tagged[1]].map { data in
            { _ = try coder.encode(try coder.decode(data, options: box), format: .jpeg, options: EncodeOptions(quality: 0.8)) }
        })
        print(String(format: "thumbnail 12 MP JPEG -> 500 px untagged cpu_ms=%.1f", thumbnails.medians[0]))
        print(String(
            format: "thumbnail 12 MP JPEG -> 500 px Display P3 cpu_ms=%.1f (%.3fx untagged, median of rounds)", thumbnails.medians[1],
            thumbnails.ratios[1]))
    }
}
