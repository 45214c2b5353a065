/// A transaction begun with its first statement: `BEGIN` and a statement whose answer is
/// checked (`check` throws to give the transaction up) are sent in the same round trip as the
/// first statement of the transaction, whichever entry point sends it — `query` and
/// `pipeline` put them in its pipeline, the others send them first. An edit's transaction so
/// learns whether the catalog it was written against is current in the round trip that makes
/// its first change (a stale one: the check throws, the transaction rolls back, the edit runs
/// again on the catalog read anew).
struct DeferredBegin {
    var statements: [PostgresQuery]
    var check: (PostgresResult) throws -> Void
}

extension PostgresConnection {
    /// Begins a transaction at `isolation` with the next statement sent, `checkQuery` run
    /// right after the BEGIN and its answer given to `check`. For `transaction(started: true)`,
    /// which forgets a begin never sent when its body returns having sent nothing; when the
    /// body throws first, the caller learns so from `forgetDeferredBegin`.
    public func deferBegin(_ isolation: PostgresIsolation, checking checkQuery: String, _ check: @escaping (PostgresResult) throws -> Void) {
        deferredBegin = DeferredBegin(
            statements: [PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL " + isolation.rawValue), PostgresQuery(unsafeSQL: checkQuery)],
            check: check)
    }

    /// Sends a deferred begin now, alone (for entry points that cannot carry it).
    func beginDeferred() throws {
        guard deferredBegin != nil else { return }
        _ = try pipeline([])
    }

    /// Forgets a deferred begin; whether there was one (its transaction's body sent nothing).
    @discardableResult
    public func forgetDeferredBegin() -> Bool {
        defer { deferredBegin = nil }
        return deferredBegin != nil
    }
}
