extension ImageServiceConfiguration {
    /// The default of ``maxSourceMemory``: 1 GiB, or room for every worker's source and one
    /// download ahead (`(workers + 1) × max-src-bytes`) when that is more.
    public var defaultSourceMemory: Int {
        let perWorker = (max(1, workers) + 1).multipliedReportingOverflow(by: limits.maxSourceBytes)
        return max(1 << 30, perWorker.overflow ? .max : perWorker.partialValue)
    }

    /// The bytes of sources requests may hold at once: ``maxSourceMemory``, never under one
    /// source of `max-src-bytes`.
    public var sourceMemory: Int { max(maxSourceMemory ?? defaultSourceMemory, limits.maxSourceBytes) }

    /// Requests that may hold a fetched source beyond the `workers` rendering: ``fetchAhead``,
    /// or as many as the workers when it is not set. One source ahead per worker keeps every
    /// worker fed whenever a download takes no longer than a render, and keeps what admitted
    /// requests hold to ``heldSourceBytesBound`` whatever the `queue`: the requests past it wait
    /// unfetched (503 with `Retry-After` when they cannot start in time).
    public var resolvedFetchAhead: Int { max(0, fetchAhead ?? max(1, workers)) }

    /// The most bytes that sources held and downloads in flight can take at once:
    /// `(workers + fetch-ahead) × max-src-bytes`, or ``sourceMemory`` when that is less.
    public var heldSourceBytesBound: Int {
        let places = max(1, workers).addingReportingOverflow(resolvedFetchAhead)
        let bytes = places.partialValue.multipliedReportingOverflow(by: limits.maxSourceBytes)
        return places.overflow || bytes.overflow ? sourceMemory : min(sourceMemory, bytes.partialValue)
    }

    /// How long a request may wait for room to fetch its source before it is answered 503 with
    /// `Retry-After`: until only `download-timeout` of its processing deadline is left (a
    /// download started later could not finish in time), or half the deadline when the download
    /// timeout is as long as the deadline.
    public var sourceWaitLimit: Double {
        processingTimeout > downloadTimeout ? processingTimeout - downloadTimeout : processingTimeout / 2
    }
}
