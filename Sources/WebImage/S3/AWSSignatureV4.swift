import Crypto
import Foundation

/// AWS Signature Version 4, as botocore's S3 signer makes it.
///
/// ``sign(_:date:payloadHash:)`` adds `X-Amz-Date`, `X-Amz-Content-SHA256` (the hex SHA-256 of
/// the body: by default the empty body's, what botocore sends for a `GET`; a `PUT` passes its
/// body's), `X-Amz-Security-Token` for temporary credentials, and `Authorization`. The signed headers are `host` and every `x-amz-*` header; the others
/// (`Accept`, `Range`, `If-None-Match`, …) are sent unsigned, which S3 allows.
///
/// The canonical request follows S3's rules: the URL's path is used as it is sent (already
/// percent-encoded, segment by segment, `/` kept — S3 paths are neither normalised nor encoded
/// a second time), the query parameters sorted by name then value, header values trimmed with
/// inner runs of spaces collapsed. The signing key is derived from the secret by HMAC-SHA256 over
/// the date, region, service and `aws4_request`.
public struct AWSSignatureV4: Sendable {
    /// The key that signs.
    public var credentials: AWSCredentials
    /// The region in the credential scope (`us-east-1`, …).
    public var region: String
    /// The service in the credential scope (default `s3`).
    public var service: String

    /// The SHA-256 of an empty body, in hex.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// A signer for `service` in `region`.
    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// `request` with the signature headers set for the time `date` (any signature headers it
    /// carried are replaced); `payloadHash` is the hex SHA-256 of the body sent with it
    /// (``emptyPayloadHash`` for none).
    public func sign(_ request: ImageDownloadRequest, date: Date, payloadHash: String = emptyPayloadHash) -> ImageDownloadRequest {
        var signed = request
        let (amzDate, dateStamp) = Self.timestamps(date)
        signed.setValue(nil, forHeader: "Authorization")
        signed.setValue(amzDate, forHeader: "X-Amz-Date")
        signed.setValue(payloadHash, forHeader: "X-Amz-Content-SHA256")
        signed.setValue(credentials.sessionToken, forHeader: "X-Amz-Security-Token")
        let headers = Self.signedHeaders(of: signed)
        let canonical = Self.canonicalRequest(
            method: signed.method, url: signed.url, headers: headers, payloadHash: payloadHash)
        let scope = "\(dateStamp)/\(region)/\(service)/aws4_request"
        let toSign = "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(Self.hexSHA256(canonical))"
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: signingKey(dateStamp: dateStamp)))
        let names = headers.map(\.name).joined(separator: ";")
        signed.setValue(
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(names), Signature=\(signature)",
            forHeader: "Authorization")
        return signed
    }

    /// The key derived from the secret for one day: HMAC-SHA256 chained over `AWS4` + secret,
    /// the date (`yyyyMMdd`), the region, the service and `aws4_request`.
    func signingKey(dateStamp: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [dateStamp, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// ``signingKey(dateStamp:)`` in hex (for tests against published examples).
    func signingKeyHex(dateStamp: String) -> String {
        signingKey(dateStamp: dateStamp).withUnsafeBytes { Self.hex(Array($0)) }
    }

    /// The canonical request of SigV4 for S3.
    static func canonicalRequest(
        method: String, url: URL, headers: [(name: String, value: String)], payloadHash: String
    ) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? ""
        var lines = [method.uppercased(), path.isEmpty ? "/" : path, canonicalQuery(components?.percentEncodedQuery)]
        lines.append(headers.map { "\($0.name):\($0.value)\n" }.joined())
        lines.append(headers.map(\.name).joined(separator: ";"))
        lines.append(payloadHash)
        return lines.joined(separator: "\n")
    }

    /// The query's `name=value` pairs sorted by name, then value (taken as sent: already
    /// encoded); a name without `=` gets an empty value.
    static func canonicalQuery(_ query: String?) -> String {
        guard let query, !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> (String, String) in
            guard let equals = pair.firstIndex(of: "=") else { return (String(pair), "") }
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }
        return pairs.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// `host` (as the HTTP client sends it: the port only when it is not the scheme's default)
    /// and the `x-amz-*` headers, lower-case names sorted, values trimmed with inner spaces
    /// collapsed.
    static func signedHeaders(of request: ImageDownloadRequest) -> [(name: String, value: String)] {
        var byName: [String: String] = ["host": hostHeader(request.url)]
        for field in request.headers {
            let name = field.name.lowercased()
            guard name.hasPrefix("x-amz-") else { continue }
            let value = field.value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            byName[name] = byName[name].map { "\($0),\(value)" } ?? value
        }
        return byName.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// The `Host` header of a request for `url`.
    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        let scheme = url.scheme?.lowercased()
        guard let port = url.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) else { return host }
        return "\(host):\(port)"
    }

    /// `X-Amz-Date` (`yyyyMMdd'T'HHmmss'Z'`) and the scope's date (`yyyyMMdd`), in UTC.
    static func timestamps(_ date: Date) -> (amzDate: String, dateStamp: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { let v = value ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        let year = String(parts.year ?? 1970)
        let day = "\(year)\(two(parts.month))\(two(parts.day))"
        return ("\(day)T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z", day)
    }

    static func hexSHA256(_ text: String) -> String {
        hex(SHA256.hash(data: Data(text.utf8)))
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
