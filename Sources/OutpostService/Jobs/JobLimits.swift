/// How many asynchronous jobs run, wait, and belong to one caller at once.
public struct JobLimits: Sendable, Equatable {
    /// Jobs running at once: exports are CPU- and disk-bound, more than the cores only slows each.
    public var running: Int
    /// Jobs waiting for a slot; past it a new job is refused (429).
    public var queued: Int
    /// Jobs one caller (a user, or an address without token security) may have running or waiting.
    public var perUser: Int

    public init(running: Int = 2, queued: Int = 32, perUser: Int = 4) {
        self.running = max(1, running)
        self.queued = max(0, queued)
        self.perUser = max(1, perUser)
    }
}

/// How busy the job runner is: jobs running, waiting for a slot, and admitted per caller
/// (`user:<name>`, or `address:<ip>` without token security).
public struct JobLoad: Sendable, Equatable {
    public var running: Int
    public var queued: Int
    public var perCaller: [String: Int]
    public var limits: JobLimits
}
