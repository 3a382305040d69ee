import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// A request context that knows its connection's channel, so the image routes can watch for
/// the client going away without consuming the request (and keep the connection alive).
public protocol ChannelRequestContext: RequestContext {
    /// The request's connection.
    var channel: any Channel { get }
}
