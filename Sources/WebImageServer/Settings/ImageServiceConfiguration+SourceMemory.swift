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

    /// How long a request may wait for room to fetch its source before it is answered 503 with
    /// `Retry-After`: until only `download-timeout` of its processing deadline is left (a
    /// download started later could not finish in time), or half the deadline when the download
    /// timeout is as long as the deadline.
    public var sourceWaitLimit: Double {
        processingTimeout > downloadTimeout ? processingTimeout - downloadTimeout : processingTimeout / 2
    }
}
