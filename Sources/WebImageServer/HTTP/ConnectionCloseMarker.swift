import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// Gives every request that does not ask to keep its connection (HTTP/1.0 without
/// `Connection: keep-alive`, or `Connection: close` in any case) the header
/// `Connection: close`, which Hummingbird reads to close the connection after the response.
/// Without it an HTTP/1.0 client that waits for the end of the connection would wait for the
/// idle timeout.
final class ConnectionCloseMarker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data), !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
