import CLCMS2
import Synchronization

/// A LittleCMS transform (8-bit, relative colorimetric), for the profiles the matrix/TRC path
/// does not take: LUT-based RGB profiles and CMYK.
///
/// The handle is kept in a `Mutex` (as its address: a pointer is not `Sendable`), so every use
/// is serialised and the type is `Sendable` without `@unchecked`: LittleCMS's one-pixel cache
/// makes a shared transform unsafe to run from two threads at once. The transform is deleted on
/// `deinit`.
final class LCMSTransform: Sendable {
    private let handle: Mutex<UInt>

    /// A transform from `source` (pixels in `inputFormat`) to `destination` (`outputFormat`).
    init?(from source: LCMSProfile, inputFormat: cmsUInt32Number, to destination: LCMSProfile, outputFormat: cmsUInt32Number) {
        let flags = inputFormat == outputFormat ? cmsUInt32Number(cmsFLAGS_COPY_ALPHA) : 0
        guard
            let transform = cmsCreateTransform(
                source.handle, inputFormat, destination.handle, outputFormat, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC),
                flags)
        else { return nil }
        handle = Mutex(UInt(bitPattern: transform))
    }

    deinit {
        handle.withLock { address in
            if let transform = UnsafeMutableRawPointer(bitPattern: address) { cmsDeleteTransform(transform) }
            address = 0
        }
    }

    /// Converts `count` pixels from `source` to `destination` (the same buffer when input and
    /// output pixels have the same size, as LittleCMS allows).
    func apply(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, count: Int) {
        handle.withLock { address in
            guard let transform = UnsafeMutableRawPointer(bitPattern: address) else { return }
            cmsDoTransform(transform, source, destination, cmsUInt32Number(count))
        }
    }
}
