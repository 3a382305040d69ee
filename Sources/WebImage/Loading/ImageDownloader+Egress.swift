import AsyncHTTPClient
import Foundation

extension ImageDownloader {
    /// The real reason behind AsyncHTTPClient's "invalid proxy response" when the egress proxy
    /// declined the `CONNECT` for `hop` (SPEC R-1): `addressRefused`, or the transport failure
    /// the proxy met resolving or connecting. `nil` for every other error.
    func egressFailure(_ error: any Error, hop: URL) -> WebImageError? {
        guard let egressProxy, let client = error as? HTTPClientError, client == .invalidProxyResponse else { return nil }
        if let key = EgressOutcomes.key(for: hop), let failure = egressProxy.outcomes.failure(for: key) {
            return failure.error
        }
        return .transport(TransportError(.cannotConnectToHost, "the address policy's proxy could not connect to \(hop.host ?? "the host")"))
    }
}
