import Foundation
import Testing
@testable import WebImage

/// The table of `Tests/Fixtures/sigv4/references.json`: S3 GetObject (and, with a `method` and a
/// `body`, PutObject) requests as botocore serialises and signs them at a fixed time. It is committed, and regenerated with botocore by
/// `"$(bash scripts/s3-venv.sh)" scripts/sigv4-references.py`.
struct SigV4References: Decodable {
    struct Case: Decodable {
        let name: String
        let bucket: String
        let key: String
        let versionId: String?
        let region: String
        let endpoint: String?
        let pathStyle: Bool
        let sessionToken: String?
        let url: String
        /// `PUT` for the PutObject cases; `nil` for GET.
        let method: String?
        /// The PUT's body (UTF-8).
        let body: String?
        let amzDate: String
        let contentSHA256: String
        let authorization: String
    }

    let accessKeyID: String
    let secretAccessKey: String
    let date: String
    let cases: [Case]

    static func load() throws -> SigV4References {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/sigv4/references.json")
        return try JSONDecoder().decode(SigV4References.self, from: Data(contentsOf: file))
    }

    var signingDate: Date {
        get throws {
            guard let date = ISO8601DateFormatter().date(from: date) else { throw WebImageError.invalidURL(date) }
            return date
        }
    }

    func credentials(_ test: Case) -> AWSCredentials {
        AWSCredentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: test.sessionToken)
    }
}

@Suite("AWS Signature Version 4 against botocore's S3 signer")
struct S3SignatureV4Tests {
    @Test("Given botocore's URL of each case, then the signature headers equal botocore's", arguments: try SigV4References.load().cases.map(\.name))
    func signsLikeBotocore(name: String) throws {
        let table = try SigV4References.load()
        let test = try #require(table.cases.first { $0.name == name })
        let url = try #require(URL(string: test.url))
        let signer = AWSSignatureV4(credentials: table.credentials(test), region: test.region)
        let request = ImageDownloadRequest(url: url, method: test.method ?? "GET", headers: [HTTPHeaderField(name: "Accept", value: "image/*")])
        let payloadHash = test.body.map(AWSSignatureV4.hexSHA256) ?? AWSSignatureV4.emptyPayloadHash
        let signed = signer.sign(request, date: try table.signingDate, payloadHash: payloadHash)
        #expect(signed.value(forHeader: "Authorization") == test.authorization)
        #expect(signed.value(forHeader: "X-Amz-Date") == test.amzDate)
        #expect(signed.value(forHeader: "X-Amz-Content-SHA256") == test.contentSHA256)
        #expect(signed.value(forHeader: "X-Amz-Security-Token") == test.sessionToken)
        #expect(signed.value(forHeader: "Accept") == "image/*")
        #expect(signed.url == url)
    }

    @Test("Given the s3:// URL of each case, then the signer (GET) and the object client (GET and PUT) map it to botocore's URL and sign it as botocore does", arguments: try SigV4References.load().cases.map(\.name))
    func mapsAndSignsLikeBotocore(name: String) throws {
        let table = try SigV4References.load()
        let test = try #require(table.cases.first { $0.name == name })
        var text = "s3://\(test.bucket)/\(S3URIEncoding.encodePath(test.key))"
        if let version = test.versionId { text += "?versionId=\(S3URIEncoding.encodeQueryComponent(version))" }
        let source = try #require(URL(string: text))
        if S3ObjectLocation.dotSegmentRefusal(bucket: test.bucket, key: test.key) != nil {
            // botocore sends a dot segment as it is; we refuse it, so the bucket checked is the
            // bucket a normalising proxy or gateway would read (the raw URL still signs alike).
            let location = S3ObjectLocation(bucket: test.bucket, key: test.key, versionID: test.versionId)
            let configuration = S3Configuration(endpoint: test.endpoint.flatMap(URL.init(string:)), region: test.region, credentials: table.credentials(test))
            #expect(throws: WebImageError.self) { try S3ObjectLocation(source) }
            #expect(throws: WebImageError.self) { try configuration.requestURL(for: location) }
            #expect(throws: WebImageError.self) { try S3RequestSigner(configuration).modify(ImageDownloadRequest(url: source)) }
            #expect(throws: WebImageError.self) { try S3ObjectClient(configuration: configuration).signedRequest(method: "GET", location, body: nil, contentType: "application/octet-stream") }
            return
        }
        let location = try S3ObjectLocation(source)
        #expect(location == S3ObjectLocation(bucket: test.bucket, key: test.key, versionID: test.versionId))
        let configuration = S3Configuration(
            endpoint: test.endpoint.flatMap(URL.init(string:)), region: test.region, pathStyle: test.pathStyle,
            credentials: table.credentials(test))
        #expect(try configuration.requestURL(for: location).absoluteString == test.url)
        let date = try table.signingDate
        let body = test.body.map { Data($0.utf8) }
        if test.method == nil {
            let signer = S3RequestSigner(configuration, now: { date })
            let signed = try signer.modify(ImageDownloadRequest(url: source))
            #expect(signed.url.absoluteString == test.url)
            #expect(signed.value(forHeader: "Authorization") == test.authorization)
        }
        // The object client (the result store's) builds and signs the same request.
        let client = S3ObjectClient(configuration: configuration, now: { date })
        let request = try client.signedRequest(method: test.method ?? "GET", location, body: body, contentType: "application/octet-stream")
        #expect(request.url.absoluteString == test.url)
        #expect(request.value(forHeader: "Authorization") == test.authorization)
        #expect(request.value(forHeader: "X-Amz-Content-SHA256") == test.contentSHA256)
    }

    @Test("Given an endpoint, then path style is the default; without one, AWS's virtual-host endpoint, path style for bucket names that cannot be hosts")
    func addressingStyles() throws {
        let location = S3ObjectLocation(bucket: "pics", key: "a/b.jpg")
        let local = S3Configuration(endpoint: URL(string: "http://127.0.0.1:9000/"), credentials: nil)
        #expect(try local.requestURL(for: location).absoluteString == "http://127.0.0.1:9000/pics/a/b.jpg")
        var virtual = local
        virtual.pathStyle = false
        #expect(try virtual.requestURL(for: location).absoluteString == "http://pics.127.0.0.1:9000/a/b.jpg")
        let aws = S3Configuration(region: "eu-west-1", credentials: nil)
        #expect(try aws.requestURL(for: location).absoluteString == "https://pics.s3.eu-west-1.amazonaws.com/a/b.jpg")
        let dotted = S3ObjectLocation(bucket: "my.pics", key: "k")
        #expect(try aws.requestURL(for: dotted).absoluteString == "https://s3.eu-west-1.amazonaws.com/my.pics/k")
    }

    @Test("Given malformed s3:// URLs, then each is invalidURL", arguments: [
        "s3://bucket", "s3://bucket/", "s3:///key", "s3://bucket/key?versionId=1&x=2", "s3://user@bucket/key",
        "s3://bucket:9000/key", "s3://bu$cket/key", "http://bucket/key",
    ])
    func malformedLocations(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: WebImageError.self) { try S3ObjectLocation(url) }
    }

    @Test("Given allowed and denied buckets, then a refused bucket fails before any URL is built, with addressRefused")
    func bucketRules() throws {
        let configuration = S3Configuration(
            endpoint: URL(string: "http://127.0.0.1:9000"), credentials: nil, allowedBuckets: ["ok", "no"], deniedBuckets: ["no"])
        let signer = S3RequestSigner(configuration)
        let allowed = ImageDownloadRequest(url: try #require(URL(string: "s3://ok/k")))
        #expect(try signer.modify(allowed).url.absoluteString == "http://127.0.0.1:9000/ok/k")
        for bucket in ["no", "other"] {
            let request = ImageDownloadRequest(url: try #require(URL(string: "s3://\(bucket)/k")))
            let error = #expect(throws: WebImageError.self) { try signer.modify(request) }
            guard case .addressRefused(_, _, let reason)? = error else {
                Issue.record("expected addressRefused, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains(bucket))
        }
        let plain = ImageDownloadRequest(url: try #require(URL(string: "http://127.0.0.1:9000/ok/k")))
        #expect(try signer.modify(plain).headers.isEmpty)
    }

    @Test("Given S3 error documents, then refusals name the code and what to check; 404 keeps the status error")
    func refusals() throws {
        let signer = S3RequestSigner(
            S3Configuration(credentials: AWSCredentials(accessKeyID: "A", secretAccessKey: "S"), credentialsSource: "environment variables"))
        let body = Data("<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key &amp; signing method.</Message></Error>".utf8)
        let refused = signer.refusal(ImageResponseInfo(statusCode: 403, url: nil, headers: []), body: body)
        guard case .invalidDownloadResponse(let reason)? = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
        #expect(reason.hasPrefix("S3 refused the request (403 SignatureDoesNotMatch: The request signature we calculated"))
        #expect(reason.contains("key & signing"))
        #expect(reason.contains("check the credentials (environment variables)"))
        #expect(signer.refusal(ImageResponseInfo(statusCode: 404, url: nil, headers: []), body: Data()) == nil)
        let unreadable = signer.refusal(ImageResponseInfo(statusCode: 500, url: nil, headers: []), body: Data([0xFF, 0x00]))
        #expect(unreadable.map { "\($0)" }?.contains("S3 refused the request (500)") == true)
    }

    @Test("Given a request signed twice, then the signature headers are replaced, not repeated")
    func resigningReplaces() throws {
        let signer = AWSSignatureV4(credentials: AWSCredentials(accessKeyID: "A", secretAccessKey: "S", sessionToken: "T"), region: "us-east-1")
        let request = ImageDownloadRequest(url: try #require(URL(string: "http://127.0.0.1:9000/b/k")))
        let once = signer.sign(request, date: Date(timeIntervalSince1970: 0))
        let twice = signer.sign(once, date: Date(timeIntervalSince1970: 0))
        #expect(twice.headers.filter { $0.hasName("Authorization") }.count == 1)
        #expect(twice.headers.filter { $0.hasName("X-Amz-Security-Token") }.count == 1)
        #expect(twice.value(forHeader: "Authorization") == once.value(forHeader: "Authorization"))
    }

    @Test("Given the AWS documentation's signing-key example, then the derived key matches")
    func signingKeyDerivation() {
        // docs.aws.amazon.com, "Examples of how to derive a signing key for Signature Version 4".
        let signer = AWSSignatureV4(
            credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "iam")
        let key = signer.signingKeyHex(dateStamp: "20150830")
        #expect(key == "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9")
    }

    @Test("Given credentials, then their description names the key id and never the secrets")
    func credentialsDescriptionRedacts() {
        let text = "\(AWSCredentials(accessKeyID: "AKID", secretAccessKey: "very-secret", sessionToken: "XYZZY"))"
        #expect(text.contains("AKID"))
        #expect(!text.contains("very-secret") && !text.contains("XYZZY"))
    }
}
