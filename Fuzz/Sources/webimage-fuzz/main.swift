// webimage-fuzz: a deterministic mutation fuzzer for the coders (`make fuzz`, ideally under
// AddressSanitizer). For every corpus input it decodes the file and MUTATIONS mutated copies
// through every entry point — full decode, thumbnail, first frame, metadata, the incremental
// decoder fed in chunks, and the animated source — and requires each to return or throw a
// WebImageError within the time limit. A crash ends the process (and fails the run).
//
// usage: webimage-fuzz [--mutations N] [--seed S] [--limit-ms MS] [PATH...]
//   PATHs default to the whole corpus (../shared/corpus or $WEBIMAGE_CORPUS). Generated TIFF,
//   SVG and PDF inputs (the corpus has few or none) are always added.
//   A mutated input is "slow" when it takes longer than the larger of --limit-ms and four
//   times its unmutated original: a big image is allowed its own decode time, a mutation that
//   makes a decoder spin is not.
import Foundation
import WebImageCodecs
import WebImageCore
import WebImageTesting

func mutate(_ data: Data, _ rng: inout SeededRandom) -> Data {
    var bytes = [UInt8](data)
    guard !bytes.isEmpty else { return Data([UInt8(truncatingIfNeeded: rng.next())]) }
    for _ in 0...rng.below(4) {
        switch rng.below(6) {
        case 0:  // flip a bit
            let i = rng.below(bytes.count)
            bytes[i] ^= UInt8(1) << UInt8(rng.below(8))
        case 1:  // interesting byte
            let i = rng.below(bytes.count)
            bytes[i] = [0x00, 0xFF, 0x7F, 0x80, 0x01][rng.below(5)]
        case 2:  // truncate
            bytes.removeLast(rng.below(bytes.count))
            if bytes.isEmpty { bytes = [0] }
        case 3:  // duplicate a span
            let start = rng.below(bytes.count)
            let length = min(rng.below(64) + 1, bytes.count - start)
            bytes.insert(contentsOf: bytes[start..<start + length], at: rng.below(bytes.count))
        case 4:  // big-endian 32-bit field set to a huge value (sizes, lengths)
            if bytes.count > 4 {
                let i = rng.below(bytes.count - 4)
                bytes.replaceSubrange(i..<i + 4, with: [0x7F, 0xFF, 0xFF, UInt8(rng.below(256))])
            }
        default:  // random byte
            bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
        }
    }
    return Data(bytes)
}

/// Runs every entry point on `data`; returns a description of a non-WebImageError failure.
func exercise(_ data: Data, coders: CodersManager) -> String? {
    func attempt(_ what: String, _ body: () throws -> Void) -> String? {
        do { try body() } catch is WebImageError { return nil } catch { return "\(what): non-typed error \(error)" }
        return nil
    }
    var thumb = DecodeOptions()
    thumb.thumbnailPixelSize = PixelSize(width: 17, height: 13)
    var first = DecodeOptions()
    first.firstFrameOnly = true
    let steps: [(String, () throws -> Void)] = [
        ("metadata", { _ = try coders.readMetadata(data) }),
        ("decode", { _ = try coders.decode(data, options: .default) }),
        ("thumbnail", { _ = try coders.decode(data, options: thumb) }),
        ("firstFrame", { _ = try coders.decode(data, options: first) }),
        ("incremental", {
            guard let progressive = coders.progressiveDecoder(for: data) else { return }
            let decoder = progressive.makeIncrementalDecoder(options: .default)
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
            let source = try animated.makeAnimatedSource(data, options: .default)
            for index in 0..<min(source.frameCount, 8) { _ = try source.frame(at: index) }
            if source.frameCount > 1 { _ = try source.frame(at: 0) }
        }),
    ]
    for (name, body) in steps {
        if let failure = attempt(name, body) { return failure }
    }
    return nil
}

var mutations = 20
var seed: UInt64 = 1
var limitMs = 2_000.0
var paths: [String] = []
var args = CommandLine.arguments.dropFirst().makeIterator()
while let arg = args.next() {
    switch arg {
    case "--mutations": mutations = Int(args.next() ?? "") ?? mutations
    case "--seed": seed = UInt64(args.next() ?? "") ?? seed
    case "--limit-ms": limitMs = Double(args.next() ?? "") ?? limitMs
    default: paths.append(arg)
    }
}
if paths.isEmpty {
    let env = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"]
    paths = [env ?? "../shared/corpus"]
}

var files: [URL] = []
for path in paths {
    let url = URL(fileURLWithPath: path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
    if !isDirectory.boolValue {
        files.append(url)
        continue
    }
    let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
    while let file = enumerator?.nextObject() as? URL {
        let name = file.lastPathComponent
        if name.hasSuffix(".md") || name.hasSuffix(".txt") || name.hasSuffix(".tsv") || name.hasSuffix(".toml") { continue }
        if file.path.contains("reference-renderings") { continue }
        if (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(file) }
    }
}
files.sort { $0.path < $1.path }

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
    return inputs
}

let coders = CodersManager.shared
var rng = SeededRandom(seed: seed)
var runs = 0
var failures = 0
var slowest = (0.0, "")
let started = Date()

/// Runs one input and its mutations.
@MainActor
func fuzz(_ name: String, _ original: Data) {
    var allowedMs = limitMs
    for round in 0...mutations {
        let input = round == 0 ? original : mutate(original, &rng)
        let t0 = Date()
        let failure = exercise(input, coders: coders)
        let ms = Date().timeIntervalSince(t0) * 1000
        runs += 1
        if ms > slowest.0 { slowest = (ms, "\(name) #\(round)") }
        if let failure {
            failures += 1
            print("FAIL \(name) mutation #\(round): \(failure)")
        }
        if round == 0 {
            allowedMs = max(limitMs, 4 * ms)
        } else if ms > allowedMs {
            failures += 1
            print(String(format: "SLOW %@ mutation #%d: %.0f ms", name, round, ms))
        }
    }
}

// Files are read one at a time (and released), the generated inputs afterwards.
for file in files {
    guard let data = try? Data(contentsOf: file), data.count <= 32 * 1024 * 1024 else { continue }
    fuzz(file.path, data)
}
var generatedCount = 0
do {
    let generated = generatedInputs()
    generatedCount = generated.count
    for (name, data) in generated { fuzz(name, data) }
}
print(String(format: "webimage-fuzz: %d files, %d inputs, %d failures, slowest %.1f ms (%@), %.0f s",
    files.count + generatedCount, runs, failures, slowest.0, slowest.1, Date().timeIntervalSince(started)))
exit(failures == 0 ? 0 : 1)
