import Foundation
import Synchronization
import Testing
import WebImageTesting
@testable import WebImage

/// Live priority: a queued or running load's priority changes through its handle, up or down,
/// and a stale update never wins (SPEC D-4).
@Suite("Downloader live priority: state machine (D-4)")
struct LoadingPriorityMachineTests {
    typealias Machine = DownloaderStateMachine<String>
    private func key(_ name: String) -> DownloadKey { DownloadKey(url: URL(string: "http://x/\(name)")!) }

    /// Starts `busy`, queues `names` at normal priority; returns the machine and the actions.
    private func queued(_ names: [String]) -> (Machine, DownloadID, [String: Machine.RequestAction]) {
        var machine = Machine(maxConcurrentDownloads: 1, order: .fifo)
        let busy = machine.request(key: key("busy"), priority: .normal, caller: "busy")
        var actions: [String: Machine.RequestAction] = [:]
        for name in names { actions[name] = machine.request(key: key(name), priority: .normal, caller: name) }
        return (machine, busy.downloadID, actions)
    }

    /// Completes downloads one at a time from `first`; returns the callers in start order.
    private func drain(_ machine: inout Machine, from first: DownloadID) -> [String] {
        var order: [String] = []
        var next: [DownloadID] = [first]
        while let id = next.first {
            next.removeFirst()
            let done = machine.complete(id)
            order += done.callers.map(\.caller)
            next += done.start.map(\.id)
        }
        return order
    }

    @Test("Given queued downloads, when one caller raises its priority and another lowers its own, then they start in the new order")
    func upAndDown() {
        var (machine, busy, actions) = queued(["a", "b", "c"])
        let result1 = machine.setPriority(actions["c"]!.callerID, to: .high, sequence: 1)
        #expect(result1 == .applied(download: .high, requeued: true))
        let result2 = machine.setPriority(actions["a"]!.callerID, to: .low, sequence: 1)
        #expect(result2 == .applied(download: .low, requeued: true))
        let order = drain(&machine, from: busy)
        #expect(order == ["busy", "c", "b", "a"])
    }

    @Test("Given a download shared by two callers, when one lowers its priority, then the download keeps the other's until it lowers too")
    func maxOfCallers() {
        var machine = Machine(maxConcurrentDownloads: 1, order: .fifo)
        _ = machine.request(key: key("busy"), priority: .normal, caller: "busy")
        let first = machine.request(key: key("x"), priority: .high, caller: "x1")
        let second = machine.request(key: key("x"), priority: .normal, caller: "x2")
        #expect(machine.priority(of: first.downloadID) == .high)
        let result3 = machine.setPriority(first.callerID, to: .low, sequence: 1)
        #expect(result3 == .applied(download: .normal, requeued: true))
        let result4 = machine.setPriority(second.callerID, to: .low, sequence: 1)
        #expect(result4 == .applied(download: .low, requeued: true))
        let result5 = machine.setPriority(second.callerID, to: .high, sequence: 2)
        #expect(result5 == .applied(download: .high, requeued: true))
        // The caller that keeps it high leaves: the download falls back to the other's.
        _ = machine.cancel(second.callerID)
        #expect(machine.priority(of: first.downloadID) == .low)
    }

    @Test("Given updates numbered 2 then 1, when the older arrives last, then it is stale and the newer stays")
    func staleUpdateLoses() {
        var (machine, busy, actions) = queued(["a", "b"])
        let a = actions["a"]!.callerID
        let result6 = machine.setPriority(a, to: .low, sequence: 2)
        #expect(result6 == .applied(download: .low, requeued: true))
        let result7 = machine.setPriority(a, to: .high, sequence: 1)
        #expect(result7 == .stale)
        let result8 = machine.setPriority(a, to: .high, sequence: 2)
        #expect(result8 == .stale)
        let order = drain(&machine, from: busy)
        #expect(order == ["busy", "b", "a"])
        let result9 = machine.setPriority(a, to: .high, sequence: 3)
        #expect(result9 == .unknownCaller, "a completed caller is gone")
    }

    @Test("Given a running download, when its priority changes, then it is applied but nothing is requeued")
    func runningDownload() {
        var machine = Machine(maxConcurrentDownloads: 1, order: .fifo)
        let busy = machine.request(key: key("busy"), priority: .normal, caller: "busy")
        let result10 = machine.setPriority(busy.callerID, to: .low, sequence: 1)
        #expect(result10 == .applied(download: .low, requeued: false))
    }
}

@Suite("Downloader live priority over loopback HTTP (D-4)")
struct LoadingPriorityEndToEndTests {
    /// Routes `busy` behind `gate` and `names` as plain images; records the order requests
    /// reach the server.
    private func routes(_ server: HTTPTestServer, gate: HTTPTestServer.Gate, names: [String]) -> Recorder<String> {
        let arrivals = Recorder<String>()
        let body = RawTestCoder.encode(width: 1, height: 1)
        server.route("/busy.raw") { _ in
            arrivals.append("busy")
            return HTTPTestServer.Response.ok(body).with { $0.gate = gate }
        }
        for name in names {
            server.route("/\(name).raw") { _ in
                arrivals.append(name)
                return .ok(body)
            }
        }
        return arrivals
    }

    @Test("Given one slot held by a gated download, when queued tokens change priority, then the server receives them in the new order")
    func tokensReorderQueue() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 1
        // Only the gate ends the held download: its timeouts outlast the hang guards below.
        configuration.downloadTimeout = 600
        configuration.maximumDownloadDuration = 600
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            let arrivals = routes(server, gate: gate, names: ["a", "b", "c", "d"])
            let results = Recorder<String>()
            _ = downloader.downloadImage(with: server.url("/busy.raw")) { results.append($0.code) }
            #expect(await eventually { gate.waitingCount == 1 })
            var tokens: [String: DownloadToken] = [:]
            for name in ["a", "b", "c", "d"] {
                tokens[name] = downloader.downloadImage(with: server.url("/\(name).raw")) { results.append($0.code) }
            }
            tokens["d"]!.setPriority(.high)  // up
            tokens["a"]!.setPriority(.low)  // down
            tokens["b"]!.setPriority(.high)
            tokens["b"]!.setPriority(.normal)  // the last call wins
            #expect(tokens["b"]!.priority == .normal)
            gate.open()
            #expect(await eventually { results.count == 5 })
            #expect(results.values.allSatisfy { $0 == "success" })
            #expect(arrivals.values == ["busy", "d", "b", "c", "a"])
            #expect(server.totalRequestCount == 5)
        }
    }

    @Test("Given loads through ImageManager behind a gated download, when their operations change priority, then the server receives them in the new order")
    func operationsReorderQueue() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 1
        // Only the gate ends the held download: its timeouts outlast the hang guards below.
        configuration.downloadTimeout = 600
        configuration.maximumDownloadDuration = 600
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            let arrivals = routes(server, gate: gate, names: ["a", "b", "c"])
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-priority-\(UUID().uuidString)")
            let cache = ImageCache(directory: directory, pool: ProcessingPool(name: "test.priority", width: 2))
            let manager = ImageManager(cache: cache, loader: downloader)
            manager.callbackQueue = .current
            var context = WebImageContext()
            context.imageCoders = CodersManager(coders: [RawTestCoder()])
            let results = CompletionRecorder()
            _ = manager.loadImage(with: server.url("/busy.raw"), context: context, completed: results.handler)
            #expect(await eventually { gate.waitingCount == 1 })
            var operations: [String: any ImageOperation] = [:]
            for name in ["a", "b", "c"] {
                operations[name] = manager.loadImage(with: server.url("/\(name).raw"), context: context, completed: results.handler)
            }
            operations["c"]!.setPriority(.high)
            operations["a"]!.setPriority(.low)
            // The loads reach the downloader after their cache queries, each in its own time:
            // the slot opens once all three wait in its queue with the new priorities.
            #expect(await eventually { downloader.queuedDownloadPriorities == [.high, .normal, .low] })
            gate.open()
            #expect(await eventually { results.count == 4 })
            #expect(results.errorCodes.isEmpty)
            #expect(arrivals.values == ["busy", "c", "b", "a"])
            #expect(server.totalRequestCount == 4)
        }
    }
}
