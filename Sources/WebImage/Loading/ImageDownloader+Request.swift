import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL
import Synchronization

extension ImageDownloader {
    /// The request D-5 describes: default headers, the range of a resumed download,
    /// credentials, validators, cookies, then the context's request modifier, then the
    /// downloader's (``ImageDownloaderConfiguration/requestModifier``).
    func buildRequest(_ setup: DownloadSetup, resuming resumed: ResumableDataStore.Entry? = nil) throws -> BuiltRequest {
        guard canRequestImage(for: setup.key.url) else { throw ImageLoaders.unsupportedURLError(setup.key.url) }
        if let egressStartFailure { throw egressStartFailure }
        var request = ImageDownloadRequest(url: setup.key.url, headers: configuration.headers)
        if let resumed {
            request.setValue("bytes=\(resumed.data.count)-", forHeader: "Range")
            request.setValue(resumed.validator, forHeader: "If-Range")
        }
        if let credentials = configuration.credentials {
            request.setValue(credentials.authorizationHeader, forHeader: "Authorization")
        }
        if let validators = setup.key.validators {
            if let tag = validators.entityTag { request.setValue(tag, forHeader: "If-None-Match") }
            if let date = validators.lastModified { request.setValue(date, forHeader: "If-Modified-Since") }
        }
        if setup.options.contains(.handleCookies), let cookie = cookieJar.cookieHeader(for: setup.key.url) {
            request.setValue(cookie, forHeader: "Cookie")
        }
        if let modifier = setup.context.requestModifier {
            guard let modified = modifier(request) else {
                throw WebImageError.invalidDownloadOperation(reason: "the request modifier returned nil")
            }
            request = modified
        }
        var guardedOrigin: URL?
        var mapped = false
        if let modifier = configuration.requestModifier {
            let before = request
            do {
                request = try modifier.modify(request)
            } catch let error as WebImageError {
                throw error
            } catch {
                throw WebImageError.invalidDownloadOperation(reason: "the downloader's request modifier failed: \(error)")
            }
            if request.url != before.url || request.headers != before.headers || request.method != before.method {
                guardedOrigin = request.url
            }
            if let scheme = before.url.scheme?.lowercased(), modifier.mappedSchemes.contains(scheme) {
                mapped = true
            }
        }
        // Checked after the modifier, which may have changed the URL: the client must never
        // see a URL it would trap on (see RequestURLCheck).
        if let problem = RequestURLCheck.problem(with: request.url) {
            throw WebImageError.invalidURL("\(request.url.absoluteString) (\(problem))")
        }
        var headers = HTTPHeaders()
        for field in request.headers { headers.add(name: field.name, value: field.value) }
        var tls: TLSConfiguration?
        if setup.options.contains(.allowInvalidSSLCertificates) {
            // The configured TLS settings (client certificate, minimum version, …) without
            // certificate verification, for this request only.
            tls = configuration.tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
            tls?.certificateVerification = .none
        }
        let built = try HTTPClient.Request(
            url: request.url.absoluteString, method: HTTPMethod(rawValue: request.method), headers: headers,
            tlsConfiguration: tls)
        return BuiltRequest(request: built, guardedOrigin: guardedOrigin, mapped: mapped)
    }
}
