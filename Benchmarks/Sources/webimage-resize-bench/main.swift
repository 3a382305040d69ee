// Resize benchmark (SPEC T-3): the Resampler on raw RGBA pixels, best and median of `runs`.
// `make bench-resize` builds it in release mode (`swift build -c release --product
// webimage-resize-bench`) and runs it through scripts/bench-resize.sh beside Pillow and libvips.
//
// Usage: webimage-resize-bench <raw RGBA file> <width> <height> <out width> <out height> <filter> <runs> [threads]
import Dispatch
import Foundation
import WebImageCore

let args = CommandLine.arguments
guard args.count >= 8,
    let width = Int(args[2]), let height = Int(args[3]),
    let outWidth = Int(args[4]), let outHeight = Int(args[5]),
    let filter = ResizeFilter(rawValue: args[6]), let runs = Int(args[7])
else {
    print("usage: webimage-resize-bench <raw RGBA file> <w> <h> <out w> <out h> <filter> <runs> [threads]")
    exit(2)
}
let threads = args.count > 8 ? Int(args[8]) ?? 1 : 1
guard let data = FileManager.default.contents(atPath: args[1]), data.count == width * height * 4 else {
    print("cannot read \(args[1]) as \(width)x\(height) RGBA")
    exit(2)
}
let source = PixelBuffer(width: width, height: height, bytes: [UInt8](data))
let resampler = Resampler(filter: filter, maxThreads: threads)
var times: [Double] = []
var checksum = 0
for _ in 0..<runs {
    let start = DispatchTime.now().uptimeNanoseconds
    let out = resampler.resample(source, to: PixelSize(width: outWidth, height: outHeight))
    let end = DispatchTime.now().uptimeNanoseconds
    times.append(Double(end - start) / 1e6)
    checksum &+= Int(out.bytes[out.bytes.count / 2])
}
times.sort()
print(String(format: "swift-web-image Resampler %@ threads=%d: best %.2f ms, median %.2f ms (%d runs, checksum %d)",
    filter.rawValue, threads, times[0], times[times.count / 2], runs, checksum))
