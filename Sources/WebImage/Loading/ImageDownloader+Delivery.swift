import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

extension ImageDownloader {
    /// Decodes once per distinct (coders, decode options) among the callers, and completes every
    /// caller (SPEC D-3: shared bytes, own decoded image). `decoded` holds the results of the
    /// groups already decoded for this body (reused, and extended with the new ones). Bytes-only
    /// groups complete at once; each decoding group is a job of its own, so callers asking for
    /// different sizes decode side by side over the pool (SPEC D-3, C-7) — this thread keeps the
    /// last decode, the others are submitted before it starts. `then` runs once, after every
    /// caller of `callers` was completed (on the thread that finished last; `onEventLoop` tells
    /// it whether that is the event loop). Runs on a processing-pool thread (or, bytes only, on
    /// the event loop).
    func deliver(
        _ body: DownloadedBody, to callers: [DownloadCallerSink], decoded: DeliveryResults,
        then: @escaping @Sendable (_ onEventLoop: Bool) -> Void = { _ in }, onEventLoop: Bool = false
    ) {
        var groups: [DeliveryGroup: [DownloadCallerSink]] = [:]
        var order: [DeliveryGroup] = []
        for caller in callers {
            let key = DeliveryGroup(caller)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(caller)
        }
        var decodes: [(key: DeliveryGroup, coders: CodersManager, members: [DownloadCallerSink])] = []
        for key in order {
            guard let members = groups[key], !members.allSatisfy(\.isFinished), let coders = members.first?.coders else {
                continue
            }
            if let known = decoded[key] {
                for member in members { member.finish(known) }
            } else if key.decode {
                decodes.append((key, coders, members))
            } else {
                var bytes = ImageLoaderResult(image: nil, data: body.data, response: body.response, finished: true)
                // An ImageManager decodes them in its decode stage, with these coders on this pool and,
                // when its options match, the download's incremental decoder.
                bytes.coders = coders
                bytes.pool = configuration.processingPool
                bytes.progressive = body.progressive
                let result = Result<ImageLoaderResult, WebImageError>.success(bytes)
                decoded[key] = result
                for member in members { member.finish(result) }
            }
        }
        guard let inline = decodes.popLast() else { return then(onEventLoop) }
        let delivery = decoded.beginDelivery(jobs: decodes.count + 1)
        let run: @Sendable (DeliveryGroup, CodersManager, [DownloadCallerSink]) -> Void = { key, coders, members in
            // A group whose callers all cancelled while the job waited for a thread needs no decode.
            if !members.allSatisfy(\.isFinished) {
                let result = self.decode(body, options: key.options, coders: coders)
                decoded[key] = result
                for member in members { member.finish(result) }
            }
            if decoded.endJob(of: delivery) { then(false) }
        }
        for group in decodes {
            configuration.processingPool.submit { run(group.key, group.coders, group.members) }
        }
        run(inline.key, inline.coders, inline.members)
    }

    private func decode(_ body: DownloadedBody, options: DecodeOptions, coders: CodersManager) -> Result<
        ImageLoaderResult, WebImageError
    > {
        let data = body.data
        let progressive = body.progressive.flatMap { $0.options == options && $0.coders === coders ? $0 : nil }
        do {
            let image: Image
            if let progressive, let decoded = try progressive.update(data, isComplete: true) {
                image = decoded
            } else {
                image = try PipelineMetrics.timedDecode("download") { try coders.decode(data, options: options) }
            }
            return .success(ImageLoaderResult(image: image, data: data, response: body.response, finished: true))
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            return .failure(.badImageData(reason: "\(error)"))
        }
    }
}
