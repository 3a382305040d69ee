// Resize benchmark (SPEC T-3): the Resampler on raw RGBA pixels. Prints the CPU time of each
// of `runs` resamples (after one warm-up) and their best and median.
// `make bench-resize` builds it in release mode and runs it through Benchmarks/python/resize_bench.py
// beside Pillow-SIMD and libvips, interleaved. `WEBIMAGE_RESAMPLE_KERNELS=portable` runs the
// portable passes instead of AVX2/NEON.
//
// Usage: webimage-resize-bench <raw RGBA file> <width> <height> <out width> <out height> <filter> <runs> [threads]
import Dispatch
import Foundation
import WebImageCore

let args = CommandLine.arguments
guard args.count >= 8,
    let width = Int(args[2]), let height = Int(args[3]),
    let outWidth = Int(args[4]), let outHeight = Int(args[5]),
    let filter = ResizeFilter(rawValue: args[6]), let runs = Int(args[7]), runs > 0
else {
    print("usage: webimage-resize-bench <raw RGBA file> <w> <h> <out w> <out h> <filter> <runs> [threads]")
    exit(2)
}
let threads = args.count > 8 ? Int(args[8]) ?? 1 : 1
guard let data = FileManager.default.contents(atPath: args[1]), data.count == width * height * 4 else {
    print("cannot read \(args[1]) as \(width)x\(height) RGBA")
    exit(2)
}

/// CPU time of the whole process (every thread), in milliseconds.
func cpuMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
}

let source = PixelBuffer(width: width, height: height, bytes: [UInt8](data))
let resampler = Resampler(filter: filter, maxThreads: threads)
let size = PixelSize(width: outWidth, height: outHeight)
var checksum = Int(resampler.resample(source, to: size).bytes.count)
var times: [Double] = []
for _ in 0..<runs {
    let start = cpuMilliseconds()
    let out = resampler.resample(source, to: size)
    times.append(cpuMilliseconds() - start)
    checksum &+= Int(out.bytes[out.bytes.count / 2])
}
print("cpu_ms " + times.map { String(format: "%.3f", $0) }.joined(separator: " "))
let sorted = times.sorted()
print(String(format: "swift-web-image Resampler %@ (%@) threads=%d: best %.2f ms, median %.2f ms CPU (%d runs, checksum %d)",
    filter.rawValue, Resampler.vectorKernels, threads, sorted[0], sorted[sorted.count / 2], runs, checksum))
