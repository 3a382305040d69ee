import Dispatch
import Foundation
import Synchronization
@testable import WebImage

/// Turns any image into a 4×3 one; optionally each transform waits for one `open()`.
final class ShrinkTransformer: ImageTransformer {
    let transformerKey = "Shrink"
    private let gate: DispatchSemaphore?
    private let started = Mutex(0)
    init(gated: Bool) { gate = gated ? DispatchSemaphore(value: 0) : nil }
    var startedCount: Int { started.withLock { $0 } }
    func open() { gate?.signal() }
    func transform(_ image: Image, key: String) -> Image? {
        started.withLock { $0 += 1 }
        if let gate { _ = gate.wait(timeout: .now() + 120) }  // a forgotten gate cannot hang the test
        let pixels = PixelBuffer.make(width: 4, height: 3) { out in
            for index in 0..<(4 * 3 * 4) { out[index] = 200 }
        }
        return Image(pixels: pixels)
    }
}
