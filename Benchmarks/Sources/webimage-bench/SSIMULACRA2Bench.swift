import Foundation
import WebImageCodecs
import WebImageCore

/// `webimage-bench ssimulacra2 ITERATIONS`: one SSIMULACRA2 comparison of 512×512 pixels (a
/// generated picture against its JPEG q50), with one reused scorer, timed ITERATIONS times on
/// this thread. Prints median wall and CPU ms per comparison and the score.
enum SSIMULACRA2Bench {
    static func run(iterations: Int) throws {
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
        let scorer = SSIMULACRA2.Scorer()
        var score = try scorer.score(reference: reference, distorted: distorted)
        var wall: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<iterations {
            let w0 = clockMilliseconds(CLOCK_MONOTONIC)
            let c0 = clockMilliseconds(CLOCK_THREAD_CPUTIME_ID)
            score = try scorer.score(reference: reference, distorted: distorted)
            cpu.append(clockMilliseconds(CLOCK_THREAD_CPUTIME_ID) - c0)
            wall.append(clockMilliseconds(CLOCK_MONOTONIC) - w0)
        }
        wall.sort()
        cpu.sort()
        print(String(format: "ssimulacra2 512x512: median_ms=%.3f cpu_ms=%.3f score=%.4f", wall[wall.count / 2], cpu[cpu.count / 2], score))
    }
}
