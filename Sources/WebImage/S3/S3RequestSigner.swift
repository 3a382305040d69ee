import Foundation

/// Loads `s3://bucket/key[?versionId=…]` URLs through an ``ImageDownloader``: a
/// ``DownloaderRequestModifier`` that maps each `s3://` URL to its object's URL at the
/// configured endpoint and signs the request with AWS Signature Version 4.
///
/// S3 is not a second download path: the `s3://` URL stays the download's URL, so requests for
/// it are coalesced, cached under it (memory and disk, revalidated with its `ETag`), and bound by
/// the downloader's deadlines and byte limits like any other. Every request is signed afresh
/// (revalidations, resumed ranges and resends too). An `s3://` URL only ever reaches the
/// configured endpoint: the URL is built from the endpoint, and a redirect to another host
/// fails the download (see ``DownloaderRequestModifier``). The endpoint is the operator's
/// setting, so a downloader's ``AddressPolicy`` does not apply to it; `http` and `https` URLs
/// pass through unchanged and unsigned — naming the endpoint in one does not bypass the policy.
///
/// ```swift
/// let settings = try AWSSettings.resolve()            // AWS_* variables, ~/.aws files
/// var configuration = ImageDownloaderConfiguration()
/// configuration.requestModifier = S3RequestSigner(S3Configuration(settings: settings))
/// let manager = ImageManager(loader: ImageDownloader(configuration: configuration))
/// let result = try await manager.loadImage(with: URL(string: "s3://photos/cats/1.jpg")!)
/// ```
///
/// A missing object fails with ``/WebImageCore/WebImageError/invalidDownloadStatusCode(_:)``
/// (404); any other refusal with ``/WebImageCore/WebImageError/invalidDownloadResponse(reason:)``
/// naming S3's error code (`SignatureDoesNotMatch`, `AccessDenied`, …) and what to check. A
/// bucket the configuration does not allow fails with
/// ``/WebImageCore/WebImageError/addressRefused(host:address:reason:)`` before anything is sent.
public struct S3RequestSigner: DownloaderRequestModifier {
    /// The endpoint, region, credentials and bucket rules.
    public let configuration: S3Configuration
    private let now: @Sendable () -> Date

    /// A signer for `configuration`; `now` gives the signing time (default: the clock).
    public init(_ configuration: S3Configuration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.now = now
    }

    /// `s3`.
    public var mappedSchemes: Set<String> { ["s3"] }

    /// S3's error documents name the reason of a refusal.
    public var describesRefusals: Bool { true }

    /// For an `s3://` URL, the signed request for the object's URL at the endpoint; any other
    /// request unchanged.
    public func modify(_ request: ImageDownloadRequest) throws -> ImageDownloadRequest {
        guard request.url.scheme?.lowercased() == "s3" else { return request }
        let location = try S3ObjectLocation(request.url)
        if let reason = configuration.refusalReason(forBucket: location.bucket) {
            throw WebImageError.addressRefused(host: "s3://\(location.bucket)", address: "", reason: reason)
        }
        var mapped = request
        mapped.url = try configuration.requestURL(for: location)
        guard let credentials = configuration.credentials else { return mapped }
        return AWSSignatureV4(credentials: credentials, region: configuration.region).sign(mapped, date: now())
    }

    /// `nil` (the status code error) for 404 and 410; otherwise an
    /// ``/WebImageCore/WebImageError/invalidDownloadResponse(reason:)`` that names S3's error code and message and
    /// what to check.
    public func refusal(_ response: ImageResponseInfo, body: Data) -> WebImageError? {
        if response.statusCode == 404 || response.statusCode == 410 { return nil }
        let error = S3ErrorResponse(body: body)
        var what = "\(response.statusCode)"
        if let code = error.code { what += " \(code)" }
        if let message = error.message { what += ": \(message)" }
        let advice: String
        switch error.code {
        case "SignatureDoesNotMatch"?, "InvalidAccessKeyId"?, "AuthorizationHeaderMalformed"?, "ExpiredToken"?, "InvalidToken"?,
            "TokenRefreshRequired"?, "RequestTimeTooSkewed"?:
            advice =
                "check the credentials (\(configuration.credentialsSource)), the region (\(configuration.region)) and the clock"
        case "AccessDenied"?:
            advice =
                configuration.credentials == nil
                ? "the request was unsigned: \(configuration.credentialsSource)"
                : "check that the credentials (\(configuration.credentialsSource)) may read the object"
        case "PermanentRedirect"?, "IncorrectEndpoint"?:
            advice = "the bucket is in another region or at another endpoint than \(configuration.effectiveEndpoint.absoluteString)"
        default:
            advice = "check the credentials (\(configuration.credentialsSource)), the region and the endpoint"
        }
        return .invalidDownloadResponse(reason: "\(Self.refusalPrefix)\(what)): \(advice)")
    }

    private static let refusalPrefix = "S3 refused the request ("

    /// The first words of a ``refusal(_:body:)`` reason, `S3 refused the request (403 AccessDenied)`:
    /// the status and S3's error code, without S3's message or what to check (which name the
    /// credentials' source and the endpoint); `nil` when `reason` is not such a refusal.
    public static func refusalSummary(of reason: String) -> String? {
        guard reason.hasPrefix(refusalPrefix) else { return nil }
        let rest = reason.dropFirst(refusalPrefix.count)
        let end = rest.firstIndex { $0 == ":" || $0 == ")" || $0 == "\n" } ?? rest.endIndex
        return refusalPrefix + rest[..<end].prefix(120) + ")"
    }
}
