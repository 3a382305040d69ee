import Foundation
import WebImageCore

/// Small helpers shared by the transformer and animation tests.
enum TransformFixtures {
    /// `Tests/Fixtures/transform-references/`, found from this file's location.
    static let directory: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/transform-references", isDirectory: true)

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// A buffer whose every pixel is `body(x, y)`.
    static func buffer(width: Int, height: Int, _ body: (Int, Int) -> RGBA) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let c = body(x, y)
                    let i = (y * width + x) * 4
                    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = c.a
                }
            }
        }
    }

    /// A deterministic opaque test pattern (gradients and a checker), distinct per `seed`.
    static func pattern(width: Int, height: Int, seed: Int = 0) -> PixelBuffer {
        buffer(width: width, height: height) { x, y in
            RGBA(
                r: UInt8((x * 255 / max(1, width - 1) + seed * 40) & 255),
                g: UInt8((y * 255 / max(1, height - 1) + seed * 70) & 255),
                b: ((x / 3 + y / 3 + seed) % 2 == 0) ? 30 : 220,
                a: 255)
        }
    }

    /// A three-frame animation of `width × height` with distinct durations and loop count 3.
    static func animation(width: Int = 8, height: Int = 6) -> Image {
        let frames = (0..<3).map { i in
            ImageFrame(pixels: pattern(width: width, height: height, seed: i), duration: [0.1, 0.2, 0.3][i])
        }
        return Image(frames: frames, format: .gif, loopCount: 3)
    }
}
