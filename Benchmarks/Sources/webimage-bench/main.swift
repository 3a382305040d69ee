// webimage-bench: decode timings of swift-web-image's coders, in the same form as the C and
// Python harnesses beside it (Benchmarks/run-decode.sh runs all of them in one go).
//
// usage: webimage-bench decode FILE ITERATIONS DENOM
//   DENOM 1 = full decode; 8 = thumbnail of 1/8 the width and height.
// prints: median_ms=<ms> mpix=<megapixels of the source>
import Foundation
import WebImageCodecs
import WebImageCore

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

let arguments = CommandLine.arguments
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
    for _ in 0..<iterations {
        times.append(try milliseconds { _ = try coders.decode(data, options: options) })
    }
    times.sort()
    let mpix = Double(metadata.pixelSize.pixelCount) / 1e6
    print(String(format: "median_ms=%.3f mpix=%.3f", times[times.count / 2], mpix))
} catch {
    FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
    exit(1)
}
