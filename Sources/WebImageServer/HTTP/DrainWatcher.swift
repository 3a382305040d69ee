import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Marks the service as draining when graceful shutdown starts (so `/health` says 503).
struct DrainWatcher: Service {
    let service: ImageService

    func run() async throws {
        try? await gracefulShutdown()
        service.beginDraining()
    }
}
