// The image targets: every decoder entry point, and the header reader.
import Foundation
@testable import WebImageCodecs
import WebImageCore
import WebImageTesting

extension FuzzTarget {
    static let decodeTarget = FuzzTarget(
        name: "decode",
        summary: "every coder through CodersManager: metadata, full decode, thumbnail, first frame, the incremental decoder fed in five chunks, the animated source's frames",
        maxLength: 1 << 20, dictionary: "images.dict", usesImageCorpus: true,
        seeds: generatedInputs,
        run: { data in
            // Colour management stays on (CMYK JPEGs, ICC profiles, PQ/HLG reach their
            // transforms); what the input put in the shared colour caches goes with it, so
            // LeakSanitizer judges each input on its own.
            defer { FuzzTarget.forgetSharedColorTransforms() }
            if let failure = exercise(data, coders: CodersManager.shared) { FuzzTarget.finding(failure) }
        })

    static let headerTarget = FuzzTarget(
        name: "header",
        summary: "format sniffing and ImageHeaderReader (size, frames, orientation from the first bytes)",
        maxLength: 1 << 16, dictionary: "images.dict", usesImageCorpus: true,
        seeds: generatedInputs,
        run: { data in
            _ = ImageFormat.detect(data)
            do { _ = try ImageHeaderReader.read(data) } catch is WebImageError {} catch { FuzzTarget.finding("header: untyped error \(error)") }
        })

    /// The decode limits of a fuzzing run: the service's kind of limits, smaller, so that one
    /// input stays far inside libFuzzer's `-timeout` under AddressSanitizer on a busy machine.
    /// The `decode` target decodes an input eight times (whole, thumbnail, first frame, five
    /// incremental prefixes): a 12 MP photo took 4 s of CPU, past 10 s of wall time at a load
    /// of 20 on two cores. Larger images add no code path a 4 MP one lacks.
    static var fuzzDecodeOptions: DecodeOptions {
        var options = DecodeOptions()
        options.limits.maxPixelCount = 4_000_000
        options.limits.maxFrameCount = 100
        options.limits.maxTotalAnimationPixels = 16_000_000
        return options
    }
}

/// Runs every entry point on `data`; returns a description of a non-WebImageError failure.
func exercise(_ data: Data, coders: CodersManager) -> String? {
    func attempt(_ what: String, _ body: () throws -> Void) -> String? {
        do { try body() } catch is WebImageError { return nil } catch { return "\(what): non-typed error \(error)" }
        return nil
    }
    var thumb = FuzzTarget.fuzzDecodeOptions
    thumb.thumbnailPixelSize = PixelSize(width: 17, height: 13)
    var first = FuzzTarget.fuzzDecodeOptions
    first.firstFrameOnly = true
    let steps: [(String, () throws -> Void)] = [
        ("metadata", { _ = try coders.readMetadata(data) }),
        ("decode", { _ = try coders.decode(data, options: FuzzTarget.fuzzDecodeOptions) }),
        ("thumbnail", { _ = try coders.decode(data, options: thumb) }),
        ("firstFrame", { _ = try coders.decode(data, options: first) }),
        ("incremental", {
            guard let progressive = coders.progressiveDecoder(for: data) else { return }
            let decoder = progressive.makeIncrementalDecoder(options: FuzzTarget.fuzzDecodeOptions)
            let step = max(1, data.count / 5)
            var end = step
            while end < data.count {
                _ = try decoder.update(data.prefix(end), isComplete: false)
                end += step
            }
            _ = try decoder.update(data, isComplete: true)
        }),
        ("animated", {
            guard let animated = coders.animatedDecoder(for: data), animated.isAnimated(data) else { return }
            let source = try animated.makeAnimatedSource(data, options: FuzzTarget.fuzzDecodeOptions)
            for index in 0..<min(source.frameCount, 8) { _ = try source.frame(at: index) }
            if source.frameCount > 1 { _ = try source.frame(at: 0) }
        }),
    ]
    for (name, body) in steps {
        if let failure = attempt(name, body) { return failure }
    }
    return nil
}

/// Inputs the corpus has none of, made here: TIFF variants written by libtiff, an SVG document
/// and a two-page PDF.
func generatedInputs() -> [(name: String, data: Data)] {
    let w = 24
    let h = 16
    var rgb: [UInt8] = []
    var rgba: [UInt8] = []
    var greyAlpha16: [UInt8] = []
    for i in 0..<w * h {
        for value in [UInt16(truncatingIfNeeded: i * 2741), UInt16(truncatingIfNeeded: 4000 + i * 151)] {
            withUnsafeBytes(of: value) { greyAlpha16 += $0 }
        }
        let pixel: [UInt8] = [UInt8(i % 256), UInt8(i * 3 % 256), UInt8(i * 7 % 256)]
        rgb += pixel
        rgba += pixel + [UInt8(100 + i % 100)]
    }
    var jpeg = TIFFTestPage(width: w, height: h, photometric: 6, compression: 7, rowsPerStrip: 16, samples: rgb)  // YCbCr, JPEG
    jpeg.jpegYCbCrFromRGB = true
    let tiffs: [(String, [TIFFTestPage])] = [
        ("lzw-strips", [TIFFTestPage(width: w, height: h, compression: 5, samples: rgb)]),
        ("deflate-tiles", [TIFFTestPage(width: w, height: h, compression: 8, tileSize: 16, samples: rgb)]),
        ("rgba-unassociated", [TIFFTestPage(width: w, height: h, samplesPerPixel: 4, compression: 5, extraSample: 2, samples: rgba)]),
        ("jpeg-ycbcr", [jpeg]),
        // Large enough for the fuzzer's 17×13 thumbnail to shrink while reading (bands of tiles / strips).
        ("shrink-tiles", [TIFFTestPage(width: 96, height: 64, samplesPerPixel: 4, compression: 8, extraSample: 2, tileSize: 16, samples: Array(repeating: rgba, count: 16).flatMap { $0 })]),
        ("shrink-strips", [TIFFTestPage(width: 96, height: 64, compression: 5, rowsPerStrip: 6, samples: Array(repeating: rgb, count: 16).flatMap { $0 })]),
        // 16-bit grey with alpha: read by the coder itself, not libtiff's RGBA interface.
        ("grey-alpha16-tiles", [TIFFTestPage(width: w, height: h, bitsPerSample: 16, samplesPerPixel: 2, photometric: 1, compression: 8, extraSample: 2, tileSize: 16, samples: greyAlpha16)]),
        ("grey-alpha16-strips", [TIFFTestPage(width: w, height: h, bitsPerSample: 16, samplesPerPixel: 2, photometric: 1, compression: 5, extraSample: 1, rowsPerStrip: 5, samples: greyAlpha16)]),
        ("two-pages", [TIFFTestPage(width: w, height: h, compression: 32773, samples: rgb), TIFFTestPage(width: 8, height: 8, orientation: 6, samples: Array(rgb.prefix(192)))]),
    ]
    var inputs: [(name: String, data: Data)] = []
    for (name, pages) in tiffs {
        if let data = try? TIFFTestWriter.write(pages) { inputs.append(("generated/\(name).tif", data)) }
    }
    let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60"><rect x="10" y="10" width="40" height="40" fill="#e02020"/><circle cx="85" cy="30" r="20" fill="#2040e0" stroke="#000"/><text x="5" y="55">SVG</text></svg>"##
    inputs.append(("generated/shapes.svg", Data(svg.utf8)))
    let filtered = ##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="48"><defs><filter id="f"><feGaussianBlur stdDeviation="3"/><feOffset dx="2"/></filter><g id="u"><rect width="9" height="9" fill="#0a0" opacity="0.5"/></g><mask id="m"><rect width="32" height="48" fill="#fff"/></mask></defs><g filter="url(#f)" mask="url(#m)"><use xlink:href="#u"/><use xlink:href="#u" x="12"/></g><text x="2" y="40">fe</text></svg>"##
    inputs.append(("generated/filters.svg", Data(filtered.utf8)))
    inputs.append(("generated/two-pages.pdf", TestPDF.twoPages))
    inputs += bmpInputs()
    return inputs
}


/// BMP and ICO files (the corpus has none): every bit depth the Swift decoder reads, bottom-up
/// and top-down, bit fields, and an icon with an AND mask.
func bmpInputs() -> [(name: String, data: Data)] {
    let palette: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]]
    let pixels = PixelBuffer.make(width: 7, height: 5) { out in
        for y in 0..<5 {
            for x in 0..<7 {
                let color = palette[(x < 3 ? 0 : 1) + (y < 2 ? 0 : 2)]
                for channel in 0..<4 { out[(y * 7 + x) * 4 + channel] = color[channel] }
            }
        }
    }
    var inputs: [(name: String, data: Data)] = []
    for bits in [1, 4, 8] {
        let dib = BMPFixture.dib(pixels, bits: bits, palette: bits == 1 ? Array(palette.prefix(2)) : palette)
        inputs.append(("generated/palette-\(bits).bmp", BMPFixture.bmp(dib, paletteAndMasks: (bits == 1 ? 2 : 4) * 4)))
    }
    inputs.append(("generated/rgb-24.bmp", BMPFixture.bmp(BMPFixture.dib(pixels, bits: 24))))
    inputs.append(("generated/top-down-32.bmp", BMPFixture.bmp(BMPFixture.dib(pixels, bits: 32, topDown: true))))
    let fields: [UInt32] = [0xF800, 0x07E0, 0x001F, 0]
    inputs.append(("generated/bitfields-16.bmp", BMPFixture.bmp(BMPFixture.dib(pixels, bits: 16, bitFields: fields))))
    let mask = (0..<5).map { y in (0..<7).map { x in (x + y) % 3 == 0 } }
    let icon = BMPFixture.dib(pixels, bits: 32, heightFactor: 2, mask: mask)
    inputs.append(("generated/icon.ico", BMPFixture.ico([(width: 7, height: 5, bits: 32, payload: icon)])))
    inputs.append(("generated/cursor.cur", BMPFixture.ico([(width: 7, height: 5, bits: 32, payload: icon)], cursorHotspot: (1, 2))))
    return inputs
}
