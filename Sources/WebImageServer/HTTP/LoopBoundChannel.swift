import HummingbirdCore
import Logging
import NIOCore

/// A server child channel whose connections run their request handling on their own event
/// loop (``EventLoopTaskExecutor``) instead of Swift's cooperative pool: the same `Base`
/// channel (Hummingbird's HTTP/1.1 channel) with the connection's task preferring its loop.
struct LoopBoundChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        let executor = EventLoopTaskExecutor(value.channel.eventLoop)
        await EventLoopTaskExecutor.$current.withValue(executor) {
            await withTaskExecutorPreference(executor) {
                await base.handle(value: value, logger: logger)
            }
        }
    }
}
