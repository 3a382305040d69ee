import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTPCompression
import Synchronization

extension ImageDownloader {
    /// Registers `observer` for the events of every download (SPEC D-9); returns an id for
    /// ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ observer: @escaping DownloadObserver) -> Int {
        observers.withLock { state in
            let id = state.next
            state.next += 1
            state.byID[id] = observer
            return id
        }
    }

    /// Unregisters an observer.
    public func removeObserver(_ id: Int) {
        observers.withLock { _ = $0.byID.removeValue(forKey: id) }
    }

    func emit(_ event: @autoclosure () -> DownloadEvent) {
        let current = observers.withLock { $0.byID.isEmpty ? [] : Array($0.byID.values) }
        guard !current.isEmpty else { return }  // no observers: the event is never built
        let event = event()
        for observer in current { observer(event) }
    }
}
