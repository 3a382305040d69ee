// The 8-bit paths the pixel format touches, timed in CPU ms (median of ITERATIONS per op):
// compiled once from main's WebImageCore and once from the branch's by
// scripts/bench-pixel-format.sh, which runs the two interleaved.
//
// Usage: pixel-format-bench ITERATIONS
import Foundation

func cpuMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

/// A photo-like RGBA8 picture: gradients plus deterministic noise; `alpha` makes a quarter of
/// it translucent.
func picture(width: Int, height: Int, alpha: Bool) -> PixelBuffer {
    var state: UInt32 = 12_345
    return PixelBuffer.make(width: width, height: height) { out in
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Int(state >> 28)
                let i = (y * width + x) * 4
                out[i] = UInt8(truncatingIfNeeded: x * 255 / width + noise)
                out[i + 1] = UInt8(truncatingIfNeeded: y * 255 / height + noise)
                out[i + 2] = UInt8(truncatingIfNeeded: (x + y) * 127 / (width + height) + noise)
                out[i + 3] = alpha && x < width / 2 && y < height / 2 ? UInt8(truncatingIfNeeded: 64 + noise * 8) : 255
            }
        }
    }
}

let iterations = CommandLine.arguments.count > 1 ? max(1, Int(CommandLine.arguments[1]) ?? 7) : 7
let photo = picture(width: 4000, height: 3000, alpha: false)
let translucent = picture(width: 2000, height: 1500, alpha: true)
var sink = 0
let ops: [(String, () -> PixelBuffer)] = [
    ("resize-lanczos3-4000x3000-to-400x300", { Resampler(filter: .lanczos3).resample(photo, to: PixelSize(width: 400, height: 300)) }),
    ("resize-lanczos3-alpha-2000x1500-to-500x375", { Resampler(filter: .lanczos3).resample(translucent, to: PixelSize(width: 500, height: 375)) }),
    ("thumbnail-4000x3000-to-400x300", { photo.thumbnail(to: PixelSize(width: 400, height: 300)) }),
    ("orientation-right-4000x3000", { photo.applying(.right) }),
    ("crop-2000x1500", { photo.cropped(to: PixelRect(x: 1000, y: 700, width: 2000, height: 1500))! }),
]
for (name, op) in ops {
    var times: [Double] = []
    for _ in 0..<iterations {
        let start = cpuMilliseconds()
        let out = op()
        times.append(cpuMilliseconds() - start)
        sink &+= Int(out.bytes[out.bytes.count / 2])
    }
    times.sort()
    print(String(format: "%@ cpu_ms=%.2f", name, times[times.count / 2]))
}
print("checksum=\(sink)")
