import Foundation
import Synchronization

/// The results already decoded from one body, by delivery group: shared by the decode jobs of
/// a delivery and reused for the callers that joined during it. State in a `Mutex`.
final class DeliveryResults: Sendable {
    private let results = Mutex<[DeliveryGroup: Result<ImageLoaderResult, WebImageError>]>([:])

    subscript(key: DeliveryGroup) -> Result<ImageLoaderResult, WebImageError>? {
        get { results.withLock { $0[key] } }
        set { results.withLock { $0[key] = newValue } }
    }
}
