import Foundation

/// Identifies one network download (shared by its coalesced callers).
struct DownloadID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64
    var description: String { "download#\(rawValue)" }
}

/// What coalesces: requests for the same URL with the same validators and the same
/// request-shaping options share one download.
struct DownloadKey: Hashable, Sendable {
    var url: URL
    var validators: HTTPCacheValidators?
    var requestOptions: WebImageOptions

    init(url: URL, validators: HTTPCacheValidators? = nil, requestOptions: WebImageOptions = []) {
        self.url = url
        self.validators = validators
        self.requestOptions = requestOptions
    }
}

/// Identifies one caller of ``ImageDownloader`` (one ``DownloadToken``).
struct DownloadCallerID: Hashable, Sendable {
    let rawValue: UInt64
}

/// The coordination of ``ImageDownloader`` (SPEC D-3, D-4) as a pure value: which URL has a
/// download that accepts callers, which callers belong to which download, and which downloads
/// run. No I/O, no locks, no clocks: the owner keeps it in a `Mutex`, calls one mutating
/// method per event, and performs the returned action after leaving the lock.
///
/// Lifecycle of one download: `queued` → `running` → (complete: removed) — or, when its last
/// caller leaves, removed at once if it was queued, or `cancelling` until its network task
/// ends (its slot stays taken until then, so the concurrency limit holds on the wire).
/// A body that arrived goes `running` → `delivering` (``completeForDelivery(_:)``): the slot is
/// free, the callers are handed over, and the download still accepts callers — they get the
/// same body — until the owner has delivered it (``endDelivery(_:)``, removed). Without that
/// phase a request arriving while the body is decoded found neither the download nor (yet) the
/// image in a memory cache, and downloaded the URL a second time.
/// A download accepts new callers only while queued, running or delivering; once it completed,
/// failed or was cancelled, a request for the same URL creates a new download.
///
/// `Caller` is the owner's per-caller payload (callbacks); tests use plain values.
struct DownloaderStateMachine<Caller> {
    private enum Phase {
        case queued
        case running
        /// The last caller left while running; the network task is being torn down.
        case cancelling
        /// The body arrived and is being delivered; callers that join now get it too.
        case delivering
    }

    private struct Download {
        let key: DownloadKey
        var callers: [(id: DownloadCallerID, caller: Caller)]
        /// Each caller's own priority and the sequence number of the update that set it.
        var callerPriorities: [DownloadCallerID: (priority: DownloadPriority, sequence: UInt64)]
        var phase: Phase
        /// How many callers hold each priority (indexed by raw value), so the maximum is O(1)
        /// however many callers join, change or leave.
        var priorityCounts = [Int](repeating: 0, count: DownloadPriority.allCases.count)

        /// The download's priority: the highest of its callers' (SPEC D-4).
        var priority: DownloadPriority {
            for level in DownloadPriority.allCases.reversed() where priorityCounts[level.rawValue] > 0 { return level }
            return .low
        }

        /// Records `callerID`'s priority (`nil`: the caller left).
        mutating func setCallerPriority(_ callerID: DownloadCallerID, _ value: (priority: DownloadPriority, sequence: UInt64)?) {
            if let old = callerPriorities[callerID] { priorityCounts[old.priority.rawValue] -= 1 }
            callerPriorities[callerID] = value
            if let value { priorityCounts[value.priority.rawValue] += 1 }
        }
    }

    /// The result of ``setPriority(_:to:sequence:)``.
    enum PriorityAction: Equatable {
        /// The caller is unknown or already completed.
        case unknownCaller
        /// An update with this sequence number or a later one was applied already: ignored.
        case stale
        /// The caller's priority was set; `download` is the download's priority now and
        /// `requeued` whether it was queued (so the new priority changes its start order).
        case applied(download: DownloadPriority, requeued: Bool)
    }

    /// A download the owner must start now.
    struct Start {
        let id: DownloadID
        let key: DownloadKey
    }

    /// The result of ``request(key:priority:caller:)``.
    struct RequestAction {
        /// The new caller's identity (for ``cancel(_:)``).
        let callerID: DownloadCallerID
        /// The download the caller joined or created.
        let downloadID: DownloadID
        /// Whether the caller joined an existing download (coalesced).
        let coalesced: Bool
        /// Downloads to start now.
        let start: [Start]
    }

    /// The result of ``cancel(_:)``.
    enum CancelAction {
        /// The caller was unknown or already completed: nothing to do.
        case none
        /// The caller left; the download goes on for the others.
        case removed(Caller)
        /// The caller was the last of a queued download, which has been dropped without ever
        /// touching the network.
        case removedAndDropQueued(Caller, DownloadID)
        /// The caller was the last of a running download: cancel its network task.
        case removedAndCancelDownload(Caller, DownloadID)
    }

    /// The result of ``complete(_:)``.
    struct CompleteAction {
        /// The callers to deliver the result to, in arrival order.
        let callers: [(id: DownloadCallerID, caller: Caller)]
        /// Downloads to start now that a slot is free.
        let start: [Start]
    }

    private var downloads: [DownloadID: Download] = [:]
    /// The download per URL that accepts new callers.
    private var joinable: [DownloadKey: DownloadID] = [:]
    private var ownerOfCaller: [DownloadCallerID: DownloadID] = [:]
    private var queue: DownloadQueue<DownloadID>
    private var nextDownload: UInt64 = 0
    private var nextCaller: UInt64 = 0
    /// Whether callers for the same key join one download (``ImageDownloaderConfiguration/coalescesDownloads``).
    private let coalesces: Bool

    init(maxConcurrentDownloads: Int, order: ImageDownloaderConfiguration.ExecutionOrder, coalesces: Bool = true) {
        queue = DownloadQueue(maxConcurrent: maxConcurrentDownloads, order: order)
        self.coalesces = coalesces
    }

    /// Downloads that currently hold a slot (running or being cancelled).
    var runningCount: Int { queue.running.count }
    /// Downloads waiting for a slot.
    var queuedCount: Int { queue.waitingCount }
    /// The priorities of the downloads waiting for a slot, highest first.
    var queuedPriorities: [DownloadPriority] { queue.waitingPriorities }
    /// Downloads known to the machine in any phase.
    var downloadCount: Int { downloads.count }

    /// A caller asks for `key`: joins its joinable download (raising its priority if
    /// needed) or creates a new one.
    mutating func request(key: DownloadKey, priority: DownloadPriority, caller: Caller) -> RequestAction {
        let callerID = DownloadCallerID(rawValue: nextCaller)
        nextCaller &+= 1
        if let existing = joinable[key], var download = downloads[existing] {
            download.callers.append((callerID, caller))
            let before = download.priority
            download.setCallerPriority(callerID, (priority, 0))
            if download.phase == .queued, download.priority != before { queue.setPriority(existing, to: download.priority) }
            downloads[existing] = download
            ownerOfCaller[callerID] = existing
            return RequestAction(callerID: callerID, downloadID: existing, coalesced: true, start: [])
        }
        let id = DownloadID(rawValue: nextDownload)
        nextDownload &+= 1
        var download = Download(key: key, callers: [(callerID, caller)], callerPriorities: [:], phase: .queued)
        download.setCallerPriority(callerID, (priority, 0))
        downloads[id] = download
        if coalesces { joinable[key] = id }
        ownerOfCaller[callerID] = id
        let started = queue.enqueue(id, priority: priority)
        return RequestAction(callerID: callerID, downloadID: id, coalesced: false, start: markRunning(started))
    }

    /// A caller cancels. Only that caller leaves; the download is dropped (queued) or
    /// cancelled (running) when it was the last one.
    mutating func cancel(_ callerID: DownloadCallerID) -> CancelAction {
        guard let downloadID = ownerOfCaller.removeValue(forKey: callerID),
            var download = downloads[downloadID],
            let index = download.callers.firstIndex(where: { $0.id == callerID })
        else { return .none }
        let caller = download.callers.remove(at: index).caller
        let before = download.priority
        download.setCallerPriority(callerID, nil)
        guard download.callers.isEmpty else {
            // The one who kept the download high may have left: its priority follows the rest.
            if download.phase == .queued, download.priority != before { queue.setPriority(downloadID, to: download.priority) }
            downloads[downloadID] = download
            return .removed(caller)
        }
        if download.phase == .delivering {
            // Still joinable: the body is being delivered to others.
            downloads[downloadID] = download
            return .removed(caller)
        }
        if joinable[download.key] == downloadID { joinable[download.key] = nil }
        switch download.phase {
        case .delivering:
            return .removed(caller)
        case .queued:
            queue.removeWaiting(downloadID)
            downloads[downloadID] = nil
            return .removedAndDropQueued(caller, downloadID)
        case .running:
            download.phase = .cancelling
            downloads[downloadID] = download
            return .removedAndCancelDownload(caller, downloadID)
        case .cancelling:
            downloads[downloadID] = download
            return .removed(caller)
        }
    }

    /// A caller changes its priority, up or down (live priority). The download's priority is
    /// the highest of its callers', so lowering one caller lowers a queued download only when
    /// no other caller keeps it high; a running download keeps running.
    ///
    /// `sequence` orders the updates of one caller (its handle numbers them from 1 upwards): an
    /// update that arrives after a later one was applied is stale and changes nothing, so two
    /// threads racing to set a priority cannot leave the older value in place.
    mutating func setPriority(
        _ callerID: DownloadCallerID, to priority: DownloadPriority, sequence: UInt64
    ) -> PriorityAction {
        guard let downloadID = ownerOfCaller[callerID], var download = downloads[downloadID],
            let current = download.callerPriorities[callerID]
        else { return .unknownCaller }
        guard sequence > current.sequence else { return .stale }
        download.setCallerPriority(callerID, (priority, sequence))
        let requeued = download.phase == .queued && queue.setPriority(downloadID, to: download.priority)
        downloads[downloadID] = download
        return .applied(download: download.priority, requeued: requeued)
    }

    /// The priority of a known download (the highest of its callers'), or `nil`.
    func priority(of downloadID: DownloadID) -> DownloadPriority? {
        downloads[downloadID]?.priority
    }

    /// The callers of a download right now (for progress and partial images).
    func callers(of downloadID: DownloadID) -> [Caller] {
        downloads[downloadID]?.callers.map(\.caller) ?? []
    }

    /// The download's body has fully arrived or it failed: it stops accepting callers, frees
    /// its slot, and hands over every remaining caller exactly once.
    mutating func complete(_ downloadID: DownloadID) -> CompleteAction {
        guard let download = downloads.removeValue(forKey: downloadID) else {
            return CompleteAction(callers: [], start: markRunning(queue.finish(downloadID)))
        }
        if joinable[download.key] == downloadID { joinable[download.key] = nil }
        for (callerID, _) in download.callers { ownerOfCaller[callerID] = nil }
        let callers = download.phase == .cancelling ? [] : download.callers
        return CompleteAction(callers: callers, start: markRunning(queue.finish(downloadID)))
    }

    /// The download's body has fully arrived and will be delivered: it frees its slot and hands
    /// over every remaining caller exactly once, but keeps accepting callers (for the same body)
    /// until ``endDelivery(_:)``. A download being cancelled is removed as by ``complete(_:)``.
    mutating func completeForDelivery(_ downloadID: DownloadID) -> CompleteAction {
        guard var download = downloads[downloadID], download.phase == .running else { return complete(downloadID) }
        for (callerID, _) in download.callers { ownerOfCaller[callerID] = nil }
        let callers = download.callers
        download.callers = []
        download.phase = .delivering
        downloads[downloadID] = download
        return CompleteAction(callers: callers, start: markRunning(queue.finish(downloadID)))
    }

    /// The owner has delivered the body of a `delivering` download: it stops accepting callers
    /// and is removed. Returns the callers that joined since ``completeForDelivery(_:)``, each
    /// exactly once, in arrival order (the owner delivers the same body to them).
    mutating func endDelivery(_ downloadID: DownloadID) -> [(id: DownloadCallerID, caller: Caller)] {
        guard let download = downloads[downloadID], download.phase == .delivering else { return [] }
        downloads[downloadID] = nil
        if joinable[download.key] == downloadID { joinable[download.key] = nil }
        for (callerID, _) in download.callers { ownerOfCaller[callerID] = nil }
        return download.callers
    }

    /// Changes the concurrency limit; returns downloads that start now.
    mutating func setMaxConcurrentDownloads(_ limit: Int) -> [Start] {
        markRunning(queue.setMaxConcurrent(limit))
    }

    private mutating func markRunning(_ ids: [DownloadID]) -> [Start] {
        ids.compactMap { id in
            guard var download = downloads[id] else { return nil }
            download.phase = .running
            downloads[id] = download
            return Start(id: id, key: download.key)
        }
    }
}
