import Crypto
import Foundation
import WebImage

/// Holds a download token for a cancellation handler that may run before it exists.
/// `@unchecked Sendable`: every access goes through `lock`.
final class TokenBox: @unchecked Sendable {
    private let lock = NSLock()
    private var token: DownloadToken?
    private var cancelled = false

    func set(_ token: DownloadToken) {
        let cancelNow = lock.withLock { () -> Bool in
            self.token = token
            return cancelled
        }
        if cancelNow { token.cancel() }
    }

    func cancel() {
        let token = lock.withLock { () -> DownloadToken? in
            cancelled = true
            return self.token
        }
        token?.cancel()
    }
}
