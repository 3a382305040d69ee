import Foundation
import NIOCore
import NIOSSL

/// Settings of an ``ImageDownloader`` (SPEC D-2, D-4, D-5, D-6).
public struct ImageDownloaderConfiguration: Sendable {
    /// The order in which queued downloads of equal priority start.
    public enum ExecutionOrder: Sendable, Hashable {
        /// Oldest first (the default).
        case fifo
        /// Newest first: the image the user scrolled to last starts first.
        case lifo
    }

    /// Maximum number of downloads on the wire at once (default 6).
    public var maxConcurrentDownloads: Int = 6
    /// FIFO (default) or LIFO within one priority.
    public var executionOrder: ExecutionOrder = .fifo
    /// Idle timeout in seconds: the longest wait for the connection, the response head or the
    /// next body bytes (default 15 s, SDWebImage's `downloadTimeout`). It is not a total: see
    /// ``maximumDownloadDuration``. Running out fails with
    /// ``/WebImageCore/WebImageError/timedOut(_:)`` naming
    /// ``/WebImageCore/WebImageError/Deadline/idle(seconds:)``.
    public var downloadTimeout: Double = 15
    /// The total deadline of one download in seconds, beside the idle ``downloadTimeout``
    /// (default 300 s; SPEC R-2): connecting, the response head, every body byte, redirects and
    /// the one stale-connection retry all count. A server that sends a byte now and then (never
    /// idle long enough for ``downloadTimeout``) is cut off here, and the download fails with
    /// ``/WebImageCore/WebImageError/timedOut(_:)`` naming
    /// ``/WebImageCore/WebImageError/Deadline/download(seconds:)``. Services whose URLs come
    /// from strangers should lower it (`webimage --max-time` sets it).
    public var maximumDownloadDuration: Double = 300
    /// The former name of ``maximumDownloadDuration``.
    @available(*, deprecated, renamed: "maximumDownloadDuration")
    public var maximumRequestDuration: Double {
        get { maximumDownloadDuration }
        set { maximumDownloadDuration = newValue }
    }
    /// Redirects followed before failing with `tooManyRedirects` (default 10); cycles fail at
    /// once.
    public var maximumRedirects: Int = 10
    /// Header fields sent with every request. Default: `Accept: image/*,*/*;q=0.8` and a
    /// `User-Agent`.
    public var headers: [HTTPHeaderField] = [
        HTTPHeaderField(name: "Accept", value: "image/*,*/*;q=0.8"),
        HTTPHeaderField(name: "User-Agent", value: ImageDownloaderConfiguration.defaultUserAgent),
    ]
    /// Basic-auth credentials sent with every request (`Authorization: Basic …`).
    public var credentials: Credentials?
    /// Changes every request this downloader sends, after the per-load
    /// ``WebImageContext/requestModifier`` (default `nil`). See ``DownloaderRequestModifier``
    /// for when it runs again (revalidations, resumed ranges, resends) and why the headers it
    /// sets never follow a redirect to another host.
    public var requestModifier: (any DownloaderRequestModifier)?
    /// The most bytes of a refused response's body read for
    /// ``DownloaderRequestModifier/refusal(_:body:)`` (default 16 KiB); the rest is not read.
    public var refusalBodyLimit: Int = 16 * 1024
    /// Acceptable status codes (default 200–299). 304 always fails with `cacheNotModified`.
    public var acceptableStatusCodes: Set<Int> = Set(200..<300)
    /// Acceptable MIME types (`image/png`, …), or `nil` (default) to accept any.
    public var acceptableContentTypes: Set<String>?
    /// The largest response accepted, in bytes (default 64 MiB); checked against
    /// `Content-Length` and while the body streams.
    public var maximumResponseSize: Int64 = 64 * 1024 * 1024
    /// Progress callbacks fire when at least this fraction (0…1) of the expected size arrived
    /// since the last one, plus once at 100 % (default 0.05). 0 reports every chunk.
    public var minimumProgressInterval: Double = 0.05
    /// Whether concurrent requests for the same URL (with the same validators and
    /// request-shaping options) share one download (SPEC D-3; Nuke's
    /// `isTaskCoalescingEnabled`). Default `true`. With `false` every request is a download of
    /// its own, which suits servers whose answers differ per request.
    public var coalescesDownloads: Bool = true
    /// Idle connections kept per host (the pool's soft limit; default 8).
    public var connectionsPerHost: Int = 8
    /// Whether a connection that cannot be established (refused, reset during the TLS
    /// handshake, certificate rejected) is tried again with exponential backoff until
    /// ``downloadTimeout`` runs out (AsyncHTTPClient's `retryConnectionEstablishment`).
    ///
    /// Default `false`: such a download fails at once with the connection's error, as with
    /// URLSession, and frees its download slot — with `true`, a host that is down holds up to
    /// ``maxConcurrentDownloads`` slots for the whole timeout and every other download queues
    /// behind them. The failure is transient (`cannotConnectToHost`, `tls` aside), so the
    /// manager does not put the URL on the failed-URL list and the next load tries again. Set
    /// `true` for servers that are briefly unreachable (restarts, deploys) when waiting is better
    /// than failing.
    public var retriesFailedConnections: Bool = false
    /// The TLS settings of HTTPS connections, or `nil` (default) for NIOSSL's client defaults:
    /// the system's trust roots, full certificate and host name verification.
    ///
    /// Set it to trust a private certificate authority, present a client certificate, or raise
    /// the minimum TLS version. ALPN is managed by the downloader (HTTP/2 is offered, with
    /// HTTP/1.1 as fallback), so `applicationProtocols` set here is replaced.
    ///
    /// ```swift
    /// import NIOSSL
    ///
    /// var tls = TLSConfiguration.makeClientConfiguration()
    /// let privateCA = try NIOSSLCertificate.fromPEMFile("/etc/ssl/private-ca.pem")
    /// tls.additionalTrustRoots = [.certificates(privateCA)]  // system roots stay trusted
    /// var configuration = ImageDownloaderConfiguration()
    /// configuration.tlsConfiguration = tls
    /// ```
    ///
    /// The ``WebImageOptions/allowInvalidSSLCertificates`` option turns off
    /// certificate verification for one request and keeps the rest of these settings.
    public var tlsConfiguration: TLSConfiguration?
    /// Transparent gzip/deflate decompression (default on; bounded by ``maximumResponseSize``).
    public var decompression: Bool = true
    /// Bytes of partial bodies kept in memory to resume interrupted downloads (default 32 MiB;
    /// 0 turns resumption off; SPEC X-3).
    ///
    /// When a download fails or is cancelled part-way and the server offered byte ranges
    /// (`Accept-Ranges: bytes`, a `Content-Length`, no `Content-Encoding`) with a strong
    /// validator — a strong `ETag`, or without any `ETag` a `Last-Modified` at least a minute
    /// older than the `Date` (RFC 9110 §13.1.5) — the bytes received are kept. The next download of the URL sends
    /// `Range: bytes=<received>-` and `If-Range`, and a `206 Partial Content` answer is joined to
    /// them when its validator and total size name the same image (a server may ignore
    /// `If-Range`); callers then see the complete response (status 200, the whole `Content-Length`),
    /// and ``DownloadMetrics/resumedBytes`` counts the bytes that came from before. A `200`
    /// answer (the image changed) replaces them. Any other answer, or a `206` for the wrong
    /// range, is retried once without a range. Revalidations (``WebImageOptions/refreshCached``)
    /// never resume.
    public var resumableDataCapacity: Int = 32 * 1024 * 1024
    /// The coders used when the context names none (default `CodersManager.shared`).
    public var coders: CodersManager?
    /// Where decodes run (default `ProcessingPool.shared`, SPEC C-7).
    public var processingPool: ProcessingPool = .shared
    /// Which resolved addresses downloads may connect to (SPEC R-1; default
    /// ``AddressPolicy/permissive``: an app may load from its own machine or LAN).
    ///
    /// Anything but a permissive policy routes every connection through an in-process egress
    /// proxy on loopback that resolves the host itself, checks every address against the policy
    /// and connects only to checked ones — for the first request and every redirect — so a
    /// refused address gets no byte and DNS rebinding cannot slip between check and connect. A
    /// refusal fails the download with ``/WebImageCore/WebImageError/addressRefused(host:address:reason:)``.
    /// Services that fetch URLs given by strangers set ``AddressPolicy/publicInternetOnly``.
    public var addressPolicy: AddressPolicy = .permissive
    /// The event loops the HTTP client and the egress proxy run on (default `nil`:
    /// AsyncHTTPClient's shared group). One `EventLoop` is a group of one: a server answering on
    /// NIO event loops can give each loop a downloader of its own, so that a download, its
    /// proxy tunnel and the request that asked for it stay on one thread.
    public var eventLoopGroup: (any EventLoopGroup)?

    /// The defaults listed on each property.
    public init() {}

    /// Basic-auth credentials.
    public struct Credentials: Sendable, Hashable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Credentials for `user`.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The `Authorization` header value.
        public var authorizationHeader: String {
            "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
    }

    /// The default `User-Agent`.
    public static let defaultUserAgent = "swift-web-image/1.0 (Linux; AsyncHTTPClient)"

    /// Sets (or with `nil` removes) the header `name` sent with every request.
    public mutating func setValue(_ value: String?, forHeader name: String) {
        headers.removeAll { $0.hasName(name) }
        if let value { headers.append(HTTPHeaderField(name: name, value: value)) }
    }
}
