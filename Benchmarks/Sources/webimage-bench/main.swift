// webimage-bench: decode timings of swift-web-image's coders, in the same form as the C and
// Python harnesses beside it (Benchmarks/run-decode.sh runs all of them in one go).
//
// usage: webimage-bench decode FILE ITERATIONS DENOM
//        webimage-bench thumbnail FILE ITERATIONS BOX   (decode to fit BOX, encode JPEG q80)
//        webimage-bench hdr-thumbnail WITH WITHOUT ITERATIONS BOX OUTDIR   (HDRBench.swift)
//        webimage-bench hdr-encode RAW W H SCALE CHANNELS QUALITY ITERATIONS OUTDIR   (HDREncodeBench.swift)
//        webimage-bench hdr-bitmap RAW W H ITERATIONS   (HDREncodeBench.swift)
//        webimage-bench colour ITERATIONS   (colour conversion cost, ColourBench.swift)
//        webimage-bench ssimulacra2 ITERATIONS [PAIRDIR]   (one 512x512 comparison, SSIMULACRA2Bench.swift;
//          PAIRDIR: also write the pair there as ref.png and dist.png)
//        webimage-bench colour-sources DIR  (the 12 MP JPEGs, untagged and tagged, ColourBench.swift)
//   DENOM 1 = full decode; 8 = thumbnail of 1/8 the width and height.
// prints: median_ms=<wall ms> cpu_ms=<median process CPU ms> mpix=<megapixels of the source>
//   size=<WxH out> fnv=<FNV-1a 64 of the last output's pixels> — the C harness prints the same
//   hash, so equal hashes show that both sides produced the same pixels.
import Foundation
import WebImageCodecs
import WebImageCore

/// Milliseconds on `clock` (CLOCK_MONOTONIC: wall; CLOCK_PROCESS_CPUTIME_ID: this process' CPU).
func clockMilliseconds(_ clock: clockid_t) -> Double {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

/// `webimage-bench thumbnail FILE ITERATIONS BOX`: the whole thumbnail path of a web image
/// service — decode to fit BOX×BOX (shrink-on-load, then the Lanczos3 finish), encode JPEG q80.
/// Prints median wall and CPU ms, the output size and its byte count.
func runThumbnail(file: String, iterations: Int, box: Int) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    let coders = CodersManager.shared
    let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: box, height: box))
    let encode = EncodeOptions(quality: 0.8)
    var last = Data()
    var size = PixelSize(width: 0, height: 0)
    func once() throws {
        let image = try coders.decode(data, options: options)
        size = image.pixelSize
        last = try coders.encode(image, format: .jpeg, options: encode)
    }
    try once()
    var wall: [Double] = []
    var cpu: [Double] = []
    for _ in 0..<iterations {
        let w0 = clockMilliseconds(CLOCK_MONOTONIC)
        let c0 = clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID)
        try once()
        cpu.append(clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - c0)
        wall.append(clockMilliseconds(CLOCK_MONOTONIC) - w0)
    }
    wall.sort()
    cpu.sort()
    print(String(format: "median_ms=%.3f cpu_ms=%.3f size=%dx%d bytes=%d", wall[wall.count / 2], cpu[cpu.count / 2],
        size.width, size.height, last.count))
}

let arguments = CommandLine.arguments
if arguments.count >= 3, arguments[1] == "colour-sources" {
    do {
        try ColourBench.writeSources(to: URL(fileURLWithPath: arguments[2], isDirectory: true))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count >= 3, arguments[1] == "ssimulacra2", let iterations = Int(arguments[2]), iterations > 0 {
    do {
        try SSIMULACRA2Bench.run(iterations: iterations, pairDirectory: arguments.count >= 4 ? arguments[3] : nil)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count >= 7, arguments[1] == "hdr-thumbnail", let iterations = Int(arguments[4]), let box = Int(arguments[5]),
    iterations > 0, box > 0
{
    do {
        try HDRBench.run(with: arguments[2], without: arguments[3], iterations: iterations, box: box, outDirectory: arguments[6])
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count >= 10, arguments[1] == "hdr-encode", let width = Int(arguments[3]), let height = Int(arguments[4]),
    let scale = Int(arguments[5]), let quality = Int(arguments[7]), let iterations = Int(arguments[8]), iterations > 0
{
    let channels = arguments[6].split(separator: ",").compactMap { Int($0) }
    do {
        try HDREncodeBench.run(
            raw: arguments[2], width: width, height: height, scale: scale, channels: channels, quality: quality,
            iterations: iterations, outDirectory: arguments[9])
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count >= 6, arguments[1] == "hdr-bitmap", let width = Int(arguments[3]), let height = Int(arguments[4]),
    let iterations = Int(arguments[5]), iterations > 0
{
    do {
        try HDRBitmapBench.run(raw: arguments[2], width: width, height: height, iterations: iterations)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count >= 3, arguments[1] == "colour", let iterations = Int(arguments[2]), iterations > 0 {
    do {
        try ColourBench.run(iterations: iterations)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count >= 5, arguments[1] == "thumbnail", let iterations = Int(arguments[3]), let box = Int(arguments[4]),
    iterations > 0, box > 0
{
    do {
        try runThumbnail(file: arguments[2], iterations: iterations, box: box)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count >= 5, arguments[1] == "decode", let iterations = Int(arguments[3]), let denom = Int(arguments[4]),
    iterations > 0, denom > 0
else {
    FileHandle.standardError.write(Data("usage: webimage-bench decode FILE ITERATIONS DENOM\n".utf8))
    exit(2)
}
do {
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
    let coders = CodersManager.shared
    let metadata = try coders.readMetadata(data)
    var options = DecodeOptions()
    if denom > 1 {
        let size = metadata.displaySize
        options.thumbnailPixelSize = PixelSize(width: size.width / denom, height: size.height / denom)
    }
    _ = try coders.decode(data, options: options)  // warm-up
    var times: [Double] = []
    var cpu: [Double] = []
    for _ in 0..<iterations {
        let start = clockMilliseconds(CLOCK_MONOTONIC)
        let cpuStart = clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID)
        _ = try coders.decode(data, options: options)
        cpu.append(clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - cpuStart)
        times.append(clockMilliseconds(CLOCK_MONOTONIC) - start)
    }
    times.sort()
    cpu.sort()
    let mpix = Double(metadata.pixelSize.pixelCount) / 1e6
    let pixels = try coders.decode(data, options: options).pixels  // untimed, for the hash
    var hash: UInt64 = 1_469_598_103_934_665_603
    for byte in pixels.bytes {
        hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211
    }
    print(
        String(
            format: "median_ms=%.3f cpu_ms=%.3f mpix=%.3f size=%dx%d fnv=%016llx", times[times.count / 2],
            cpu[cpu.count / 2], mpix, pixels.width, pixels.height, hash))
} catch {
    FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
    exit(1)
}
