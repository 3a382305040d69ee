// webimage-pipeline-bench: the manager's numbers (issue "The manager", docs/PERFORMANCE.md).
//
//   webimage-pipeline-bench memory-hit [ITERATIONS]
//       ns per loadImage on a memory hit (callback API, .current queue) vs a direct
//       MemoryCache lookup of the same key, in the same run.
//   webimage-pipeline-bench end-to-end CACHE_DIR [COUNT]
//       COUNT distinct 256x256 JPEGs served over loopback: cold (download + decode + store),
//       then warm from memory in the same process; prints images/s and peak RSS.
//   webimage-pipeline-bench disk CACHE_DIR [COUNT]
//       a new process: the same images from the disk cache only (fromCacheOnly).
//   webimage-pipeline-bench memory-cache [ITERATIONS]
//       ns per MemoryCache hit vs a bare Mutex<[String: Image]> lookup, 1 thread and 2 threads.
//   webimage-pipeline-bench disk-hit [ITERATIONS]
//       µs per DiskCache.data(for:) of a 64 KiB entry vs open+fstat+allocate+read(2)+close of
//       the same file (what any reader that returns fresh bytes must do).
//   webimage-pipeline-bench serve [COUNT]
//       a loopback server (another process, so a profiler counts only the client) serving
//       COUNT distinct 2,316-byte bodies at /img<i>.raw; prints its base URL, stops at EOF on stdin.
//   webimage-pipeline-bench request-overhead BASE_URL bare|downloader|both [COUNT] [ROUNDS]
//       COUNT sequential GETs, one at a time: a bare AsyncHTTPClient execute + collect against
//       ImageDownloader (bytes only), alternating rounds in one process (`both`), or one side
//       alone (for callgrind: instructions per request = difference between two COUNTs).
import AsyncHTTPClient
import Dispatch
import NIOCore
import NIOHTTPCompression
import Foundation
import Synchronization
import WebImage
import WebImageTesting

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// CPU time used by this process so far (all threads, user + system), in nanoseconds.
func processCPUTime() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func peakRSSMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    let fields = line.split(separator: " ")
    return (fields.count > 1 ? Double(fields[1]) ?? 0 : 0) / 1024
}

/// A deterministic 256x256 photo-like JPEG, different per index.
func sampleJPEG(_ index: Int) throws -> Data {
    let w = 256
    let h = 256
    let pixels = PixelBuffer.make(width: w, height: h) { out in
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                out[i] = UInt8(truncatingIfNeeded: x &+ index)
                out[i + 1] = UInt8(truncatingIfNeeded: y &* 3 &+ index)
                out[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) &+ index &* 7)
                out[i + 3] = 255
            }
        }
    }
    return try CodersManager.shared.encode(
        Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.8))
}

func urls(_ base: String, _ count: Int) -> [URL] {
    (0..<count).compactMap { URL(string: "\(base)/img\($0).jpg") }
}

/// Cache keys without host and port, so that a later process finds the entries of this one.
let pathKeys = CacheKeyFilterClosure { $0.path }

/// Loads every URL through `manager`, at most 64 loads in flight from this side.
func loadAll(_ manager: ImageManager, _ list: [URL], options: WebImageOptions) async throws
    -> (seconds: Double, hits: [String: Int])
{
    let start = now()
    var hits: [String: Int] = [:]
    try await withThrowingTaskGroup(of: String.self) { group in
        var next = 0
        func add() {
            let url = list[next]
            next += 1
            group.addTask { "\(try await manager.loadImage(with: url, options: options).cacheType)" }
        }
        while next < min(64, list.count) { add() }
        while let type = try await group.next() {
            hits[type, default: 0] += 1
            if next < list.count { add() }
        }
    }
    return (Double(now() - start) / 1e9, hits)
}

func argument(_ index: Int) -> String? {
    CommandLine.arguments.count > index ? CommandLine.arguments[index] : nil
}

switch argument(1) ?? "" {
case "memory-hit":
    let iterations = argument(2).flatMap { Int($0) } ?? 200_000
    let cache = ImageCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-bench-\(getpid())"))
    let manager = ImageManager(cache: cache, loader: LocalImageLoader())
    manager.callbackQueue = .current
    guard let url = URL(string: "https://bench.invalid/a.jpg") else { exit(1) }
    let image = Image(pixels: PixelBuffer(width: 1, height: 1, bytes: [1, 2, 3, 255]))
    cache.memoryCache.setImage(image, forKey: url.absoluteString)
    let hits = Mutex(0)
    let completion: ImageCompletionHandler = { result in
        if case .success(let value) = result, value.cacheType == .memory { hits.withLock { $0 += 1 } }
    }
    for _ in 0..<1_000 { manager.loadImage(with: url, completed: completion) }
    var bestPipeline = Double.infinity
    var bestDirect = Double.infinity
    for _ in 0..<5 {
        var t0 = now()
        for _ in 0..<iterations { manager.loadImage(with: url, completed: completion) }
        bestPipeline = min(bestPipeline, Double(now() - t0) / Double(iterations))
        let key = url.absoluteString
        var found = 0
        t0 = now()
        for _ in 0..<iterations where cache.memoryCache.image(forKey: key) != nil { found += 1 }
        bestDirect = min(bestDirect, Double(now() - t0) / Double(iterations))
        guard found == iterations else { exit(1) }
    }
    guard hits.withLock({ $0 }) == 1_000 + 5 * iterations else {
        print("not every call was a memory hit")
        exit(1)
    }
    print(String(format: "memory hit: loadImage %.0f ns, MemoryCache lookup %.0f ns, ratio %.1fx (best of 5 x %d)",
        bestPipeline, bestDirect, bestPipeline / bestDirect, iterations))
case "end-to-end":
    let directory = URL(fileURLWithPath: argument(2) ?? "/tmp/pipeline-bench-cache")
    let count = argument(3).flatMap { Int($0) } ?? 500
    try? FileManager.default.removeItem(at: directory)
    let server = HTTPTestServer()
    try await server.start()
    for i in 0..<count { server.route("/img\(i).jpg", .ok(try sampleJPEG(i), contentType: "image/jpeg")) }
    let downloader = ImageDownloader()
    let manager = ImageManager(cache: ImageCache(directory: directory), loader: downloader)
    manager.callbackQueue = .current
    manager.cacheKeyFilter = pathKeys
    let list = urls("http://127.0.0.1:\(server.port)", count)
    let cold = try await loadAll(manager, list, options: .waitStoreCache)
    let warm = try await loadAll(manager, list, options: [])
    print(String(format: "cold (download+decode+store): %d images in %.2f s = %.0f images/s; %d requests; %@",
        count, cold.seconds, Double(count) / cold.seconds, server.totalRequestCount, "\(cold.hits)"))
    print(String(format: "warm memory (same process):   %d images in %.3f s = %.0f images/s; %@",
        count, warm.seconds, Double(count) / warm.seconds, "\(warm.hits)"))
    print(String(format: "peak RSS: %.0f MiB", peakRSSMiB()))
    try await downloader.shutdown()
    await server.shutdown()
case "disk":
    let directory = URL(fileURLWithPath: argument(2) ?? "/tmp/pipeline-bench-cache")
    let count = argument(3).flatMap { Int($0) } ?? 500
    let manager = ImageManager(cache: ImageCache(directory: directory), loader: LocalImageLoader())
    manager.callbackQueue = .current
    manager.cacheKeyFilter = pathKeys
    // Same keys as the cold run (the path), any host: every load must come from disk.
    let result = try await loadAll(manager, urls("http://127.0.0.1:9", count), options: .fromCacheOnly)
    print(String(format: "warm disk (new process):      %d images in %.2f s = %.0f images/s; %@",
        count, result.seconds, Double(count) / result.seconds, "\(result.hits)"))
    print(String(format: "peak RSS: %.0f MiB", peakRSSMiB()))
case "memory-cache":
    let iterations = argument(2).flatMap { Int($0) } ?? 1_000_000
    let cache = MemoryCache()
    let bare = Mutex<[String: Image]>([:])
    let keys = (0..<1_000).map { "https://bench.invalid/images/\($0).jpg" }
    for key in keys {
        let image = Image(pixels: PixelBuffer(width: 1, height: 1, bytes: [1, 2, 3, 255]))
        cache.setImage(image, forKey: key)
        bare.withLock { $0[key] = image }
    }
    func measure(threads: Int, _ lookup: @escaping @Sendable (String) -> Image?) -> Double {
        let perThread = iterations / threads
        let start = now()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var found = 0
            for i in 0..<perThread where lookup(keys[(i &+ t &* 7) % keys.count]) != nil { found += 1 }
            precondition(found == perThread)
        }
        return Double(now() - start) / Double(perThread)
    }
    for threads in [1, 2] {
        var ours = Double.infinity
        var baseline = Double.infinity
        for _ in 0..<5 {
            ours = min(ours, measure(threads: threads) { cache.image(forKey: $0) })
            baseline = min(baseline, measure(threads: threads) { key in bare.withLock { $0[key] } })
        }
        print(String(format: "memory cache hit, %d thread(s): MemoryCache %.0f ns, Mutex<[String: Image]> %.0f ns, ratio %.2fx",
            threads, ours, baseline, ours / baseline))
    }
case "disk-hit":
    let iterations = argument(2).flatMap { Int($0) } ?? 2_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disk-hit-bench-\(getpid())")
    let disk = DiskCache(directory: directory)
    let payload = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    try await disk.storeAndWait(payload, forKey: "https://bench.invalid/entry.jpg")
    let path = disk.path(for: "https://bench.invalid/entry.jpg").path
    var ours = Double.infinity
    var raw = Double.infinity
    for _ in 0..<5 {
        var t0 = now()
        for _ in 0..<iterations { precondition(disk.data(for: "https://bench.invalid/entry.jpg")?.count == 65_536) }
        ours = min(ours, Double(now() - t0) / Double(iterations))
        t0 = now()
        for _ in 0..<iterations {
            // What any reader returning the bytes does: open, size, allocate, read, close.
            let fd = open(path, O_RDONLY)
            var info = stat()
            fstat(fd, &info)
            let size = Int(info.st_size)
            let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                count = max(0, read(fd, buffer.baseAddress, size))
            }
            close(fd)
            precondition(bytes.count == 65_536)
        }
        raw = min(raw, Double(now() - t0) / Double(iterations))
    }
    print(String(format: "disk hit (64 KiB): DiskCache.data %.1f µs, open+fstat+alloc+read(2)+close %.1f µs, ratio %.2fx",
        ours / 1000, raw / 1000, ours / raw))
    try? FileManager.default.removeItem(at: directory)
case "serve":
    let count = argument(2).flatMap { Int($0) } ?? 1_000
    let server = HTTPTestServer()
    try await server.start()
    let body = Data((0..<2_316).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    for i in 0..<count { server.route("/img\(i).raw", .ok(body, contentType: "image/x-raw")) }
    print("http://127.0.0.1:\(server.port)")
    fflush(nil)  // all output streams
    // Serve until the parent closes stdin.
    await Task.detached { while readLine() != nil {} }.value
    await server.shutdown()
case "request-overhead":
    guard let base = argument(2), let mode = argument(3), ["bare", "downloader", "both"].contains(mode) else {
        FileHandle.standardError.write(Data("usage: request-overhead BASE_URL bare|downloader|both [COUNT] [ROUNDS]\n".utf8))
        exit(2)
    }
    let count = argument(4).flatMap { Int($0) } ?? 300
    let rounds = argument(5).flatMap { Int($0) } ?? 5
    let list = (0..<count).compactMap { URL(string: "\(base)/img\($0).raw") }
    let client = mode == "downloader" ? nil : HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
    // A bare client configured as ImageDownloader configures its own (timeouts, redirects,
    // decompression): the difference to this one is the downloader's own code.
    let configured = mode == "downloader" ? nil : HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 10, allowCycles: false),
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(15), read: .seconds(15)),
            connectionPool: HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 8),
            decompression: .enabled(limit: .size(64 * 1024 * 1024))))
    let downloader: ImageDownloader? = mode == "bare" ? nil : {
        var configuration = ImageDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 1
        return ImageDownloader(configuration: configuration)
    }()
    func bareGet(_ client: HTTPClient, _ url: URL) async throws {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
    }
    func downloaderGet(_ downloader: ImageDownloader, _ url: URL) async {
        let result = await withCheckedContinuation { continuation in
            _ = downloader.downloadImage(with: url, options: .avoidDecodeImage) { continuation.resume(returning: $0) }
        }
        guard case .success(let value) = result, value.data.count == 2_316 else {
            print("download failed: \(result)")
            exit(1)
        }
    }
    // Connect first, so that every round reuses one warm connection.
    if let client { try await bareGet(client, list[0]) }
    if let configured { try await bareGet(configured, list[0]) }
    if let downloader { await downloaderGet(downloader, list[0]) }
    /// The bare GET as a callback API delivers it: started in a task of its own (`Task { }`, as
    /// the downloader starts each download), finished by a completion handler that resumes the
    /// waiting caller — the two hops every callback API on Swift tasks pays.
    func bareCallbackGet(_ client: HTTPClient, _ url: URL) async {
        let ok = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let completion: @Sendable (Bool) -> Void = { continuation.resume(returning: $0) }
            Task {
                do {
                    try await bareGet(client, url)
                    completion(true)
                } catch {
                    completion(false)
                }
            }
        }
        if !ok { exit(1) }
    }
    // Each side's per-request wall and CPU times, one entry per round.
    var wall: [[Double]] = [[], [], [], []]
    var cpu: [[Double]] = [[], [], [], []]
    let sides: [((URL) async throws -> Void)?] = [
        client.map { client in { try await bareGet(client, $0) } },
        configured.map { configured in { try await bareGet(configured, $0) } },
        downloader.map { downloader in { await downloaderGet(downloader, $0) } },
        configured.map { configured in { await bareCallbackGet(configured, $0) } },
    ]
    for round in 0..<rounds {
        // Alternating sides within a round, so that all see the same machine load, and
        // rotating which goes first, because going first measurably favours a side.
        for offset in 0..<sides.count {
            let side = (round + offset) % sides.count
            guard let get = sides[side] else { continue }
            let (t0, c0) = (now(), processCPUTime())
            for url in list { try await get(url) }
            wall[side].append(Double(now() - t0) / Double(count))
            cpu[side].append(Double(processCPUTime() - c0) / Double(count))
        }
    }
    let (bare, same, ours) = (wall[0], wall[1], wall[2])
    let (bareCPU, sameCPU, oursCPU) = (cpu[0], cpu[1], cpu[2])
    let (hop, hopCPU) = (wall[3], cpu[3])
    if let client { try await client.shutdown().get() }
    if let configured { try await configured.shutdown().get() }
    if let downloader { try await downloader.shutdown() }
    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
    func line(_ label: String, _ wall: [Double], _ cpu: [Double]) {
        print(String(format: "  %@ %7.1f µs wall (median), %7.1f µs best round, %7.1f µs client CPU", label,
            median(wall) / 1000, (wall.min() ?? .nan) / 1000, median(cpu) / 1000))
    }
    print("sequential GET, \(rounds) alternating rounds of \(count) requests, per request:")
    line("bare AsyncHTTPClient, default configuration  ", bare, bareCPU)
    line("bare AsyncHTTPClient, downloader's settings  ", same, sameCPU)
    line("  … same, in a task with a completion handler", hop, hopCPU)
    line("ImageDownloader (bytes only, callback)       ", ours, oursCPU)
    if !bare.isEmpty, !ours.isEmpty {
        print(String(format: "ratio to default bare: %.2fx wall, %.2fx best, %.2fx CPU; to same-settings bare: %.2fx wall, %.2fx best, %.2fx CPU",
            median(ours) / median(bare), (ours.min() ?? .nan) / (bare.min() ?? .nan), median(oursCPU) / median(bareCPU),
            median(ours) / median(same), (ours.min() ?? .nan) / (same.min() ?? .nan), median(oursCPU) / median(sameCPU)))
        print(String(format: "ratio to same-settings bare with a completion handler: %.2fx wall, %.2fx best, %.2fx CPU",
            median(ours) / median(hop), (ours.min() ?? .nan) / (hop.min() ?? .nan), median(oursCPU) / median(hopCPU)))
    }
default:
    FileHandle.standardError.write(Data("usage: webimage-pipeline-bench memory-hit [N] | end-to-end DIR [COUNT] | disk DIR [COUNT] | memory-cache [N] | disk-hit [N] | serve [COUNT] | request-overhead BASE_URL MODE [COUNT] [ROUNDS]\n".utf8))
    exit(2)
}
