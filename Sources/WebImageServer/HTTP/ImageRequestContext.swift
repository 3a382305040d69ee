import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// The request context of ``ImageServer``'s application: Hummingbird's basic context plus the
/// connection's channel. Use it for your own router (`Router(context: ImageRequestContext.self)`)
/// together with ``ImageServer/httpServer(idleTimeout:headerTimeout:firstByteTimeout:)`` to get keep-alive on image routes.
public struct ImageRequestContext: ChannelRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
