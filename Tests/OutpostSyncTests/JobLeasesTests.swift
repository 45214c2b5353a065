import OutpostSync
import Testing

/// docs/postgres.md, "Jobs": what becomes of a job whose claim ran out, by kind and attempts.
@Suite struct JobLeasesTests {
    static let rows: [(JobKind, Int, JobLeases.Expiry)] = [
        (.createReplica, 1, .requeue), (.createReplica, 2, .fail),
        (.exportTiles, 1, .requeue), (.estimateExportTilesSize, 1, .requeue), (.estimateExportTilesSize, 2, .fail),
        (.synchronizeReplica, 1, .fail), (.createMapArea, 1, .fail), (.setupMapArea, 1, .fail), (.refreshMapAreaPackage, 1, .fail),
    ]

    @Test(arguments: rows.indices) func anExpiredJobIsRunAgainOnlyWhenThatIsHarmless(_ row: Int) {
        let (kind, attempts, expiry) = Self.rows[row]
        #expect(JobLeases.onExpiry(kind: kind, attempts: attempts) == expiry)
    }
}
