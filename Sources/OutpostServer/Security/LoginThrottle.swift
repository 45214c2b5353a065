/// Sign-in throttling for `generateToken`, per user name and per client address: a few
/// wrong passwords are free, then each further one doubles the wait before the next attempt
/// is even checked (1 s, 2 s, 4 s … at most 5 minutes). An attempt during the wait is refused
/// with 429 and `Retry-After` without checking the password, so guessing costs the guesser
/// time and the server no hashing. A success clears the name's and the address's record.
///
/// A pure value: the caller supplies the clock and keeps it behind a lock.
struct LoginThrottle: Sendable {
    /// Wrong passwords allowed before waits begin.
    static let freeFailures = 3
    static let firstWait = 1.0
    static let longestWait = 300.0
    /// Records untouched this long are forgotten (bounds the memory an attacker can fill).
    static let forgetAfter = 3600.0
    static let maximumRecords = 100_000

    struct Record: Sendable, Equatable {
        var failures: Int
        var lastFailure: Double
    }

    private(set) var records: [String: Record] = [:]

    static func keys(user: String, address: String) -> [String] {
        ["user:\(user.lowercased())", "address:\(address)"]
    }

    /// Seconds the caller must still wait before an attempt is checked; 0 when it may go on.
    func wait(user: String, address: String, now: Double) -> Double {
        Self.keys(user: user, address: address).compactMap { records[$0] }.map { record in
            guard record.failures >= Self.freeFailures else { return 0 }
            let wait = min(Self.longestWait, Self.firstWait * pow2(record.failures - Self.freeFailures))
            return max(0, record.lastFailure + wait - now)
        }.max() ?? 0
    }

    mutating func failed(user: String, address: String, now: Double) {
        if records.count >= Self.maximumRecords { records = records.filter { now - $0.value.lastFailure < Self.forgetAfter } }
        for key in Self.keys(user: user, address: address) {
            var record = records[key] ?? Record(failures: 0, lastFailure: now)
            if now - record.lastFailure >= Self.forgetAfter { record.failures = 0 }
            record.failures += 1
            record.lastFailure = now
            records[key] = record
        }
    }

    mutating func succeeded(user: String, address: String) {
        for key in Self.keys(user: user, address: address) { records[key] = nil }
    }

    private func pow2(_ exponent: Int) -> Double {
        exponent >= 30 ? Double(1 << 30) : Double(1 << exponent)
    }
}
