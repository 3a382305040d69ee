import Foundation
import WebImage

extension ProcessingLimits {
    /// Reads the header of `data` (detected as `format`) and checks its declared size and
    /// frames against the source limits, without decoding (SPEC V-5).
    /// - Throws: ``ImageServiceError/notAnImage``, ``ImageServiceError/tooLarge(_:)``, or
    ///   ``ImageServiceError/unprocessable(_:)`` for a header that cannot be read.
    func checkHeader(_ data: Data, format: ImageFormat) throws(ImageServiceError) -> ImageMetadata {
        let metadata: ImageMetadata
        do { metadata = try ImageHeaderReader.read(data, format: format) } catch {
            if format == .unknown { throw .notAnImage }
            throw .unprocessable("unreadable header")
        }
        let pixels = metadata.pixelSize.pixelCount
        guard pixels <= maxSourcePixels else {
            throw .tooLarge("\(metadata.pixelSize) exceeds \(maxSourcePixels) pixels")
        }
        if let frames = metadata.frameCount {
            guard frames <= maxAnimationFrames else {
                throw .tooLarge("\(frames) frames exceed \(maxAnimationFrames)")
            }
            let (total, overflow) = pixels.multipliedReportingOverflow(by: max(frames, 1))
            guard !overflow, total <= maxTotalAnimationPixels else {
                throw .tooLarge("animation exceeds \(maxTotalAnimationPixels) pixels")
            }
        }
        return metadata
    }

    /// The decoder's own limits: the source limits, applied again while decoding.
    func applied(to options: inout DecodeOptions) {
        options.limits.maxPixelCount = maxSourcePixels
        options.limits.maxFrameCount = maxAnimationFrames
        options.limits.maxTotalAnimationPixels = maxTotalAnimationPixels
    }

    /// Checks the encoded result's size (SPEC V-5: the maximum result size).
    /// - Throws: ``ImageServiceError/unprocessable(_:)`` when it is over ``maxResultBytes``.
    func checkResult(bytes: Int) throws(ImageServiceError) {
        if bytes > maxResultBytes {
            throw .unprocessable("result is \(bytes) bytes, over the limit of \(maxResultBytes)")
        }
    }
}
