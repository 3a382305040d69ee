import Foundation

/// Loads `file://` and `data:` URLs without the network (SPEC D-1).
///
/// Reading and decoding run on the ``/WebImageCore/ProcessingPool``; for an ``ImageManager``
/// it reads only, and the manager's decode stage decodes. `data:` URLs accept base64
/// (`data:image/png;base64,…`) and percent-encoded payloads. Files larger than
/// ``maximumSize`` fail with ``/WebImageCore/WebImageError/responseTooLarge(limit:)``.
public final class LocalImageLoader: ImageLoader {
    /// The largest file or payload loaded, in bytes (default 64 MiB).
    public let maximumSize: Int64
    private let pool: ProcessingPool

    public init(maximumSize: Int64 = 64 * 1024 * 1024, pool: ProcessingPool = .shared) {
        self.maximumSize = maximumSize
        self.pool = pool
    }

    /// `file:` and `data:` URLs.
    public func canRequestImage(for url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "file" || scheme == "data"
    }

    public func requestImage(
        with url: URL,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        let decodeOptions = context.decodeOptions(for: options, url: url)
        let coders = context.imageCoders ?? CodersManager.shared
        // An ImageManager's request is answered with the bytes: its decode stage decodes them.
        let decode = !options.contains(.avoidDecodeImage) && !context.deliversBytesOnly
        let limit = maximumSize
        let decryptor = context.decryptor
        let task = Task { [pool] in
            let result: Result<ImageLoaderResult, WebImageError>
            do {
                let output = try await pool.run { () throws -> (Data, Image?) in
                    var data = try Self.read(url, limit: limit)
                    if let decryptor {
                        guard let decrypted = decryptor(data, nil) else {
                            throw WebImageError.badImageData(reason: "the decryptor returned nil")
                        }
                        data = decrypted
                    }
                    guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty data") }
                    return (data, decode ? try PipelineMetrics.timedDecode("file") { try coders.decode(data, options: decodeOptions) } : nil)
                }
                progress?(Int64(output.0.count), Int64(output.0.count), url)
                var value = ImageLoaderResult(image: output.1, data: output.0, response: nil, finished: true)
                value.coders = coders
                value.pool = pool
                result = .success(value)
            } catch let error as WebImageError {
                result = .failure(error)
            } catch {
                result = .failure(.badImageData(reason: "\(error)"))
            }
            // The one call: a request cancelled meanwhile ends with `cancelled`, whatever the
            // work produced.
            completed(Task.isCancelled ? .failure(.cancelled) : result)
        }
        return LocalLoadToken(task: task)
    }

    /// Failures of local URLs are permanent except cancellation.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        ImageLoaders.defaultShouldBlockFailedURL(error)
    }

    static func read(_ url: URL, limit: Int64) throws -> Data {
        if url.scheme?.lowercased() == "data" { return try decodeDataURL(url.absoluteString, limit: limit) }
        return try LocalFile.read(url.path, limit: limit)
    }

    /// Decodes `data:[<mediatype>][;base64],<payload>`.
    static func decodeDataURL(_ string: String, limit: Int64) throws -> Data {
        guard string.lowercased().hasPrefix("data:"), let comma = string.firstIndex(of: ",") else {
            throw WebImageError.invalidURL("malformed data URL")
        }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let payload = string[string.index(after: comma)...]
        // base64 expands by 4/3; refuse before decoding anything too large.
        guard Int64(payload.utf8.count) / 4 * 3 <= limit else { throw WebImageError.responseTooLarge(limit: limit) }
        let data: Data?
        if header.lowercased().hasSuffix(";base64") {
            data = Data(base64Encoded: String(payload.removingPercentEncoding ?? String(payload)), options: .ignoreUnknownCharacters)
        } else {
            data = payload.removingPercentEncoding.map { Data($0.utf8) }
        }
        guard let data else { throw WebImageError.invalidURL("undecodable data URL payload") }
        return data
    }
}

/// The token of a ``LocalImageLoader`` request: the request's task. Cancelling it ends the
/// request with ``/WebImageCore/WebImageError/cancelled`` when the task notices (before the read
/// starts, or when the read or decode returns); the task completes exactly once either way.
struct LocalLoadToken: ImageLoaderToken {
    let task: Task<Void, Never>

    func cancel() {
        task.cancel()
    }
}
