import Foundation
import Synchronization

/// The one incremental decoder of a progressive download (SPEC D-8). Its decoder is used by
/// one download at a time; the `Mutex` serialises the calls.
final class ProgressiveDecoding: Sendable {
    let options: DecodeOptions
    let coders: CodersManager
    private let decoder: Mutex<any IncrementalImageDecoder>

    init(decoder: sending any IncrementalImageDecoder, options: DecodeOptions, coders: CodersManager) {
        self.decoder = Mutex(decoder)
        self.options = options
        self.coders = coders
    }

    func update(_ data: Data, isComplete: Bool) throws -> Image? {
        try decoder.withLock { try $0.update(data, isComplete: isComplete) }
    }
}
