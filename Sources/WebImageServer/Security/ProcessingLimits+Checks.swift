import Foundation
import WebImage

extension ProcessingLimits {
    /// Reads the header of `data` (detected as `format`) and checks its declared size and
    /// frames against the source limits, without decoding (SPEC V-5). A PDF is described by
    /// its page `page` (0 when `nil`), the one page drawn, as a single frame.
    /// An SVG is described by its intrinsic size, read by parsing it within ``svgBudget`` (its
    /// element and filter-primitive counts are checked first); it is one frame.
    /// - Throws: ``ImageServiceError/notAnImage``, ``ImageServiceError/tooLarge(_:)``, or
    ///   ``ImageServiceError/unprocessable(_:)`` for a header that cannot be read (a PDF page
    ///   past the last one included).
    func checkHeader(_ data: Data, format: ImageFormat, page: Int? = nil) throws(ImageServiceError) -> ImageMetadata {
        let metadata: ImageMetadata
        if format == .pdf {
            do {
                let document = try PDFCoder(pageIndex: page ?? 0).readMetadata(data)
                metadata = ImageMetadata(format: .pdf, pixelSize: document.pixelSize, frameCount: 1, isAnimated: false, hasAlpha: false)
            } catch let error as WebImageError {
                throw .unprocessable(error.description)
            } catch {
                throw .unprocessable("unreadable header")
            }
        } else if format == .svg {
            metadata = try svgHeader(data)
        } else {
            do { metadata = try ImageHeaderReader.read(data, format: format) } catch {
                if format == .unknown { throw .notAnImage }
                throw .unprocessable("unreadable header")
            }
        }
        let pixels = metadata.pixelSize.pixelCount
        guard pixels <= maxSourcePixels else {
            throw .tooLarge("\(metadata.pixelSize) exceeds \(maxSourcePixels) pixels")
        }
        if let frames = metadata.frameCount {
            guard frames <= maxAnimationFrames else {
                throw .tooLarge("\(frames) frames exceed \(maxAnimationFrames)")
            }
            if frames > 1, maxAnimationFramePixels > 0, pixels > maxAnimationFramePixels {
                throw .tooLarge("animation frames of \(metadata.pixelSize) exceed \(maxAnimationFramePixels) pixels (max_animation_frame_resolution)")
            }
            let (total, overflow) = pixels.multipliedReportingOverflow(by: max(frames, 1))
            guard !overflow, total <= maxTotalAnimationPixels else {
                throw .tooLarge("animation exceeds \(maxTotalAnimationPixels) pixels")
            }
            if frames > 1, maxAnimationFramePixels == 0, let summed = maxSummedSourcePixels, total > summed {
                throw .tooLarge("\(frames) frames of \(metadata.pixelSize) exceed \(summed) pixels in all (max_src_resolution counts every frame)")
            }
        }
        return metadata
    }

    /// An SVG source's intrinsic size, read within ``svgBudget``: over its counts (or the
    /// document size limit) ``ImageServiceError/tooLarge(_:)``, unreadable or past its time
    /// ``ImageServiceError/unprocessable(_:)``.
    private func svgHeader(_ data: Data) throws(ImageServiceError) -> ImageMetadata {
        do {
            let document = try SVGCoder(budget: svgBudget).readMetadata(data)
            return ImageMetadata(format: .svg, pixelSize: document.pixelSize, frameCount: 1, isAnimated: false, hasAlpha: true)
        } catch WebImageError.imageTooLarge(let reason) {
            throw .tooLarge(reason)
        } catch let error as WebImageError {
            throw .unprocessable(error.description)
        } catch {
            throw .unprocessable("unreadable SVG")
        }
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
