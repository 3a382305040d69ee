import Foundation

/// One event of a load, as ``ImageManager/imageEvents(for:options:context:)`` streams them.
public enum ImageLoadEvent: Sendable {
    /// Bytes received so far and bytes expected (`nil` when unknown).
    case progress(receivedSize: Int64, expectedSize: Int64?)
    /// A partial image of a progressive load.
    case partialImage(ImageResult)
    /// A complete image. A `refreshCached` load may send two: the cached one, then a new one.
    case image(ImageResult)
}

extension ImageManager {
    /// Loads `url` (SPEC M-11). Cancelling the calling task cancels the load (SPEC M-10) and
    /// throws ``/WebImageCore/WebImageError/cancelled``.
    ///
    /// - Returns: the image and where it came from. With `refreshCached`, the freshest image:
    ///   the downloaded one if the server changed it, else the cached one. When the request may
    ///   not download and nothing is cached, the result has no image (SPEC M-8).
    /// - Throws: a ``/WebImageCore/WebImageError``.
    public func loadImage(
        with url: URL,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageProgressHandler? = nil
    ) async throws -> ImageResult {
        var context = context
        context.callbackQueue = .current
        switch prefix(url, options: options, context: context, progress: progress) {
        case .ended(let result, _):
            return try result.get()
        case .load(let request, let queue):
            // The handle exists before the cancellation handler can run: no holder needed.
            let operation = begin(request, queue: queue, keepsOutcome: true, completed: { _ in }, ended: nil)
            return try await withTaskCancellationHandler {
                try await operation.outcome().get()
            } onCancel: {
                operation.cancel()
            }
        }
    }

    /// Loads the image of `url` (SPEC M-11): the async API with a non-optional image, as Nuke's
    /// and Kingfisher's. Cancelling the calling task cancels the load (SPEC M-10) and throws
    /// ``/WebImageCore/WebImageError/cancelled``.
    ///
    /// The same load as `loadImage(with:options:context:progress:) async`; where that one
    /// returns a result without an image, this one throws.
    ///
    /// - Returns: the image and where it came from. With `refreshCached`, the freshest image.
    /// - Throws: a ``/WebImageCore/WebImageError``;
    ///   ``/WebImageCore/WebImageError/invalidDownloadOperation(reason:)`` when the load may not
    ///   download and nothing is cached (`fromCacheOnly`, or the delegate's veto), or when
    ///   `avoidDecodeImage` asks for the bytes only.
    public func image(
        for url: URL,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageProgressHandler? = nil
    ) async throws(WebImageError) -> ImageResponse {
        let result: ImageResult
        do {
            result = try await loadImage(with: url, options: options, context: context, progress: progress)
        } catch {
            throw error as? WebImageError ?? .invalidDownloadOperation(reason: "\(error)")
        }
        if let response = ImageResponse(result) { return response }
        throw .invalidDownloadOperation(
            reason: options.contains(.avoidDecodeImage)
                ? "avoidDecodeImage asks for the bytes only: load them with loadImage(with:)"
                : "nothing is cached for \(url.absoluteString) and the load may not download it")
    }

    /// ``loadImage(with:options:context:progress:)`` for a URL string (SPEC M-2).
    /// - Throws: ``/WebImageCore/WebImageError/invalidURL(_:)`` for a string that is not a URL.
    public func loadImage(
        with urlString: String,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageProgressHandler? = nil
    ) async throws -> ImageResult {
        guard let url = URL(string: urlString), Self.isLoadable(url) else {
            throw rejectedURLString(urlString)
        }
        return try await loadImage(with: url, options: options, context: context, progress: progress)
    }

    /// The events of one load as an asynchronous sequence: progress, partial images (with
    /// `progressiveLoad`), then the image (SPEC M-11). The sequence ends after the load, throws
    /// its error, and cancels the load when the consumer stops iterating.
    public func imageEvents(
        for url: URL,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext()
    ) -> AsyncThrowingStream<ImageLoadEvent, any Error> {
        var context = context
        context.callbackQueue = .current
        return AsyncThrowingStream { continuation in
            let operation = start(
                url, options: options, context: context,
                progress: { received, expected, _ in
                    continuation.yield(.progress(receivedSize: received, expectedSize: expected))
                },
                completed: { result in
                    switch result {
                    case .success(let value):
                        continuation.yield(value.isFinal ? .image(value) : .partialImage(value))
                    case .failure(let error):
                        continuation.finish(throwing: error)
                    }
                },
                ended: { continuation.finish() })
            continuation.onTermination = { _ in operation?.cancel() }
        }
    }
}
