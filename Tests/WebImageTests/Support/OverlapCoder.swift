import Dispatch
import Foundation
import Synchronization
@testable import WebImage

/// Decodes RAWI like ``RawTestCoder`` and records how many decodes run at once. The first
/// decode holds its thread until a second decode is running beside it (or 300 s passed, the
/// hang guard), so serial decodes show up as a maximum of 1.
final class OverlapCoder: ImageCoder {
    private let state = Mutex<(inFlight: Int, maxInFlight: Int, entered: Int)>((0, 0, 0))
    private let overlap = DispatchSemaphore(value: 0)

    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    var decodes: Int { state.withLock { $0.entered } }

    func canDecode(_ data: Data) -> Bool { RawTestCoder.header(data) != nil }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let (isFirst, overlapping) = state.withLock { state -> (Bool, Bool) in
            state.inFlight += 1
            state.entered += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return (state.entered == 1, state.inFlight >= 2)
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if overlapping { overlap.signal() }
        if isFirst { _ = overlap.wait(timeout: .now() + 300) }
        guard let (width, height) = RawTestCoder.header(data) else {
            throw WebImageError.badImageData(reason: "not RAWI")
        }
        return RawTestCoder.image(data, width: width, height: height, rows: height, options: options)
    }

    func canEncode(_ format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError.unsupportedFormat(format, reason: "decode only")
    }
}
