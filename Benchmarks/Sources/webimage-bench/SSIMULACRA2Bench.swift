import Foundation
import WebImageCodecs
import WebImageCore

/// `webimage-bench ssimulacra2 ITERATIONS`: one SSIMULACRA2 comparison of 512×512 pixels (a
/// generated picture against its JPEG q50), with one reused scorer, timed ITERATIONS times on
/// this thread, interleaved with preparing the reference (`SSIMULACRA2.PreparedReference`) and
/// one comparison against the prepared reference (what each candidate of an autoquality search
/// costs). Prints median wall and CPU ms of each and the scores. `WEBIMAGE_METRIC_KERNELS=portable`
/// in the environment measures the baseline kernels. With `pairDirectory`, the pair is also
/// written there as `ref.png` and `dist.png` (lossless), for the reference implementation to
/// score the same pixels (Benchmarks/python/ssimulacra2_peer.py).
enum SSIMULACRA2Bench {
    static func run(iterations: Int, pairDirectory: String? = nil) throws {
        let side = 512
        let bytes = [UInt8](unsafeUninitializedCapacity: side * side * 4) { buffer, count in
            for y in 0..<side {
                for x in 0..<side {
                    let i = (y * side + x) * 4
                    let wave = sin(Double(x) * 0.05) * cos(Double(y) * 0.031)
                    buffer[i] = UInt8(clamping: Int(128 + 100 * wave))
                    buffer[i + 1] = UInt8(truncatingIfNeeded: (x * 7 + y * 3) & 0xFF)
                    buffer[i + 2] = UInt8(truncatingIfNeeded: ((x ^ y) * 5) & 0xFF)
                    buffer[i + 3] = 255
                }
            }
            count = side * side * 4
        }
        let reference = PixelBuffer(width: side, height: side, bytes: bytes)
        let jpeg = try CodersManager.shared.encode(
            Image(pixels: reference, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.5))
        let distorted = try CodersManager.shared.decode(jpeg, options: DecodeOptions()).pixels
        if let pairDirectory {
            for (name, pixels) in [("ref.png", reference), ("dist.png", distorted)] {
                let png = try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
                try png.write(to: URL(fileURLWithPath: pairDirectory).appendingPathComponent(name))
            }
        }
        let scorer = SSIMULACRA2.Scorer()
        var prepared = try SSIMULACRA2.PreparedReference(reference)
        var score = try scorer.score(reference: reference, distorted: distorted)
        var preparedScore = try scorer.score(prepared: prepared, distorted: distorted)
        let names = ["comparison", "prepare", "prepared_comparison"]
        var wall = [[Double]](repeating: [], count: names.count)
        var cpu = wall
        for _ in 0..<iterations {
            for (index, _) in names.enumerated() {
                let w0 = clockMilliseconds(CLOCK_MONOTONIC)
                let c0 = clockMilliseconds(CLOCK_THREAD_CPUTIME_ID)
                switch index {
                case 0: score = try scorer.score(reference: reference, distorted: distorted)
                case 1: prepared = try SSIMULACRA2.PreparedReference(reference)
                default: preparedScore = try scorer.score(prepared: prepared, distorted: distorted)
                }
                cpu[index].append(clockMilliseconds(CLOCK_THREAD_CPUTIME_ID) - c0)
                wall[index].append(clockMilliseconds(CLOCK_MONOTONIC) - w0)
            }
        }
        for (index, name) in names.enumerated() {
            let w = wall[index].sorted(), c = cpu[index].sorted()
            print(String(format: "ssimulacra2 512x512 %@: median_ms=%.3f cpu_ms=%.3f", name, w[w.count / 2], c[c.count / 2]))
        }
        print(String(format: "ssimulacra2 512x512 scores: plain=%.4f prepared=%.4f", score, preparedScore))
    }
}
