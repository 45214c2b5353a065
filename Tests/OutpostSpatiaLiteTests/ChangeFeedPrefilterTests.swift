import GRDB
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import PropertyBased
import Testing

@testable import OutpostSpatiaLite

/// The change feed's SQL pre-filters (`ChangeFeedPrefilter`) against the rules they stand in
/// front of: over random server records, a pre-filter never drops a row `SyncRules` would send,
/// and each row is read in the one pass its decision belongs to. Run on a real SQLite table
/// with the store's column names.
@Suite struct ChangeFeedPrefilterTests {
    private static let writers: [String?] = [nil, me, other, VersionReconcile.mergeWriter(me)]

    /// One random row: its creation and last-change generations, its last writer, and whether
    /// it (or, for an attachment, its feature) is in the replica's filter.
    struct RandomRow: Sendable, CustomStringConvertible {
        var createdGen: Int64
        var changedGen: Int64
        var lastWriter: String?
        var inFilter: Bool
        var description: String { "created \(createdGen), changed \(changedGen) by \(lastWriter ?? "an online edit"), in filter: \(inFilter)" }
    }

    private static let rows = zip(Gen.int(in: 0...12), Gen.int(in: 0...8), Gen.int(in: 0...3), Gen.bool).map { facts in
        RandomRow(createdGen: Int64(facts.0), changedGen: Int64(facts.0 + facts.1), lastWriter: writers[facts.2], inFilter: facts.3)
    }
    /// Who allocated each generation 0...20 (0: an online edit, 1: the replica, 2: another).
    private static let creators = Gen.int(in: 0...2).array(of: 21)

    @Test func featurePrefiltersNeverDropARowTheRulesSend() async throws {
        await propertyCheck(count: 300, input: Self.rows.array(of: 0...24), Self.creators, Gen.int(in: 0...20), Gen.bool) {
            rows, creators, since, echoes in
            try Self.check(rows, creators: creators, since: Int64(since), skipsOwnWrites: !echoes) { record, inFilter, createdByReplica in
                SyncRules.download(
                    record, matchesFilter: inFilter, since: Int64(since), replicaId: me, echoesOwnWrites: echoes,
                    createdByReplica: createdByReplica)
            }
        }
    }

    @Test func attachmentPrefiltersNeverDropARowTheRulesSend() async throws {
        await propertyCheck(count: 300, input: Self.rows.array(of: 0...24), Self.creators, Gen.int(in: 0...20)) { rows, creators, since in
            // The store's attachment query also keeps to features in the filter (its join).
            try Self.check(rows, creators: creators, since: Int64(since), skipsOwnWrites: true, parentCondition: true) {
                record, inFilter, createdByReplica in
                SyncRules.downloadAttachment(
                    record, parentInFilter: inFilter, since: Int64(since), replicaId: me,
                    createdByReplica: createdByReplica)
            }
        }
    }

    @Test func tombstonePrefilterNeverDropsADeleteTheRulesSend() async throws {
        await propertyCheck(count: 300, input: Self.rows.array(of: 0...24), Gen.int(in: 0...20)) { rows, since in
            let queue = try DatabaseQueue()
            let kept = try queue.write { db in
                try db.execute(sql: "CREATE TABLE outpost_tombstones(id INTEGER PRIMARY KEY, created_generation, generation, replica_id)")
                for (index, row) in rows.enumerated() {
                    try db.execute(
                        sql: "INSERT INTO outpost_tombstones VALUES (?, ?, ?, ?)",
                        arguments: [index, row.createdGen, row.changedGen, row.lastWriter])
                }
                let prefilter = ChangeFeedPrefilter.tombstones(alias: "t", since: Int64(since))
                return Set(
                    try Int.fetchAll(
                        db, sql: "SELECT id FROM outpost_tombstones t WHERE \(prefilter.condition)",
                        arguments: StatementArguments(prefilter.arguments)))
            }
            for (index, row) in rows.enumerated() {
                let record = ServerRecord.tombstone(
                    objectId: Int64(index), createdGen: row.createdGen, deletedGen: row.changedGen,
                    deletedBy: row.lastWriter)
                for createdByReplica in [false, true]
                where SyncRules.download(record, matchesFilter: false, since: Int64(since), replicaId: me, createdByReplica: createdByReplica)
                    != .none
                {
                    #expect(kept.contains(index), "dropped \(row), since \(since)")
                }
            }
        }
    }

    /// Loads `rows` into a table shaped like a layer table, reads each pass through the
    /// pre-filter, and compares with `decide` (record, in filter, created by the replica).
    private static func check(
        _ rows: [RandomRow], creators: [Int], since: Int64, skipsOwnWrites: Bool, parentCondition: Bool = false,
        decide: (ServerRecord, Bool, Bool) -> DownloadChange
    ) throws {
        let queue = try DatabaseQueue()
        let passes = try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE outpost_generations(generation INTEGER PRIMARY KEY, replica_id TEXT);
                    CREATE TABLE layer(id INTEGER PRIMARY KEY, outpost_created_gen, outpost_gen, outpost_replica, in_filter);
                    """)
            for (generation, creator) in creators.enumerated() {
                try db.execute(sql: "INSERT INTO outpost_generations VALUES (?, ?)", arguments: [generation, [nil, me, other][creator]])
            }
            for (index, row) in rows.enumerated() {
                try db.execute(
                    sql: "INSERT INTO layer VALUES (?, ?, ?, ?, ?)",
                    arguments: [index, row.createdGen, row.changedGen, row.lastWriter, row.inFilter])
            }
            var passes: [DownloadChange: Set<Int>] = [:]
            for pass in [DownloadChange.add, .update] {
                let prefilter = ChangeFeedPrefilter.changedRows(pass, alias: "t", since: since, replicaId: me, skipsOwnWrites: skipsOwnWrites)
                let parent = parentCondition ? "t.in_filter AND " : ""
                passes[pass] = Set(
                    try Int.fetchAll(
                        db, sql: "SELECT id FROM layer t WHERE \(parent)\(prefilter.condition)",
                        arguments: StatementArguments(prefilter.arguments)))
            }
            return passes
        }
        for (index, row) in rows.enumerated() {
            let record = ServerRecord.row(objectId: Int64(index), createdGen: row.createdGen, changedGen: row.changedGen, lastWriter: row.lastWriter)
            let createdByReplica = creators[Int(row.createdGen)] == 1
            let decision = decide(record, row.inFilter, createdByReplica)
            let inAdd = passes[.add]!.contains(index)
            let inUpdate = passes[.update]!.contains(index)
            #expect(!(inAdd && inUpdate), "read twice: \(row), since \(since)")
            switch decision {
            case .add: #expect(inAdd, "an add dropped: \(row), since \(since), created by the replica: \(createdByReplica)")
            case .update, .delete: #expect(inUpdate, "\(decision) dropped: \(row), since \(since), created by the replica: \(createdByReplica)")
            case .none: break
            }
        }
    }
}

private let me = "{AAAAAAAA-0000-4000-8000-000000000001}"
private let other = "{BBBBBBBB-0000-4000-8000-000000000002}"
