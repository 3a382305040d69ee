// webimage-fuzz: a deterministic mutation fuzzer for the coders (`make fuzz`, ideally under
// AddressSanitizer). For every corpus input it decodes the file and MUTATIONS mutated copies
// through every entry point — full decode, thumbnail, first frame, metadata, the incremental
// decoder fed in chunks, and the animated source — and requires each to return or throw a
// WebImageError within the time limit. A crash ends the process (and fails the run).
//
// usage: webimage-fuzz [--mutations N] [--seed S] [--limit-ms MS] [PATH...]
//   PATHs default to the whole corpus (../shared/corpus or $WEBIMAGE_CORPUS).
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

let coders = CodersManager.shared
var rng = SeededRandom(seed: seed)
var runs = 0
var failures = 0
var slowest = (0.0, "")
let started = Date()
for file in files {
    guard let original = try? Data(contentsOf: file), original.count <= 32 * 1024 * 1024 else { continue }
    var allowedMs = limitMs
    for round in 0...mutations {
        let input = round == 0 ? original : mutate(original, &rng)
        let t0 = Date()
        let failure = exercise(input, coders: coders)
        let ms = Date().timeIntervalSince(t0) * 1000
        runs += 1
        if ms > slowest.0 { slowest = (ms, "\(file.path) #\(round)") }
        if let failure {
            failures += 1
            print("FAIL \(file.path) mutation #\(round): \(failure)")
        }
        if round == 0 {
            allowedMs = max(limitMs, 4 * ms)
        } else if ms > allowedMs {
            failures += 1
            print(String(format: "SLOW %@ mutation #%d: %.0f ms", file.path, round, ms))
        }
    }
}
print(String(format: "webimage-fuzz: %d files, %d inputs, %d failures, slowest %.1f ms (%@), %.0f s",
    files.count, runs, failures, slowest.0, slowest.1, Date().timeIntervalSince(started)))
exit(failures == 0 ? 0 : 1)
