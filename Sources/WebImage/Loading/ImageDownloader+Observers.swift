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
        state.withLock { state in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers[id] = observer
            return id
        }
    }

    /// Unregisters an observer.
    public func removeObserver(_ id: Int) {
        state.withLock { _ = $0.observers.removeValue(forKey: id) }
    }

    func emit(_ event: @autoclosure () -> DownloadEvent) {
        let current = state.withLock { $0.observers.isEmpty ? [] : Array($0.observers.values) }
        guard !current.isEmpty else { return }  // no observers: the event is never built
        let event = event()
        for observer in current { observer(event) }
    }
}
