import Testing

@testable import OutpostSync

/// The rule that decides how a device's copy of a feature package is brought up to date
/// (docs/map-areas.md, "Updating a copy"), one row per case.
@Suite struct ScheduledUpdatePlannerTests {
    static let replica = "{6D3A1C6E-6E55-4B4F-9C2A-0A6B1D7E8F90}"
    static let deltas = [d(7), d(5), d(9)]

    static func d(_ generation: Int64) -> PackageDelta { PackageDelta(name: "d_\(generation).gpkg", generation: generation, size: 100 + generation) }

    static func package(_ generation: Int64, purged: Int64? = nil, keeps: Bool = true, replica: String = replica) -> PackageState {
        PackageState(replicaId: replica, generation: generation, lastPurgedGeneration: purged, keepsDeltas: keeps)
    }

    static let rows: [(String, Int64, PackageState, [PackageDelta], ScheduledUpdatePlan)] = [
        ("same generation", 9, package(9), deltas, .upToDate),
        ("behind: the newer deltas in order", 3, package(9), deltas, .applyDeltas([d(5), d(7), d(9)])),
        ("one behind", 7, package(9), deltas, .applyDeltas([d(9)])),
        ("at the last purged generation", 5, package(9, purged: 5), [d(7), d(9)], .applyDeltas([d(7), d(9)])),
        (
            "behind the last purged generation", 3, package(9, purged: 5), [d(7), d(9)],
            .downloadWhole(.deltasPurged(localGeneration: 3, lastPurgedGeneration: 5))
        ),
        ("no deltas kept", 3, package(9, keeps: false), [], .downloadWhole(.noDeltasKept(localGeneration: 3, packageGeneration: 9))),
        (
            "deltas stop short of the package", 3, package(11), deltas,
            .downloadWhole(.deltasDoNotReach(localGeneration: 3, packageGeneration: 11))
        ),
        (
            "a delta past the package (a refresh cut off)", 3, package(7), deltas,
            .downloadWhole(.deltasDoNotReach(localGeneration: 3, packageGeneration: 7))
        ),
        (
            "the copy ahead of the package", 12, package(9), deltas,
            .downloadWhole(.copyAheadOfPackage(localGeneration: 12, packageGeneration: 9))
        ),
    ]

    @Test(arguments: rows.indices) func aCopyIsUpdatedByDeltasOrTakenWhole(_ row: Int) {
        let (name, local, package, resources, expected) = Self.rows[row]
        #expect(
            ScheduledUpdatePlanner.plan(localReplica: Self.replica, localGeneration: local, package: package, resources: resources) == expected,
            "\(name)")
    }

    @Test func aPackageMadeAgainWithAnotherReplicaIsTakenWhole() {
        let other = "{11111111-2222-3333-4444-555555555555}"
        let plan = ScheduledUpdatePlanner.plan(
            localReplica: Self.replica.lowercased(), localGeneration: 9, package: Self.package(9, replica: other), resources: [])
        #expect(plan == .downloadWhole(.packageReplaced(localReplica: Self.replica.lowercased(), packageReplica: other)))
        #expect(
            ScheduledUpdatePlanner.plan(
                localReplica: Self.replica.lowercased().dropFirst().dropLast().description, localGeneration: 9, package: Self.package(9),
                resources: []) == .upToDate, "GlobalIDs compared in any spelling")
    }

    @Test func deltaNamesAndPackagePropertiesAreRead() {
        #expect(PackageDelta(resource: "d_42.gpkg", size: 3) == PackageDelta(name: "d_42.gpkg", generation: 42, size: 3))
        #expect(PackageDelta(resource: "d_42.geodatabase", size: 3)?.generation == 42, "Esri's packager's name")
        #expect(PackageDelta(resource: "d_x.gpkg", size: 3) == nil && PackageDelta(resource: "thumbnail.png", size: 3) == nil)
        #expect(
            PackageState(properties: ["replicaID": "r", "replicaServerGen": 4, "lastPurgedGen": 2, "createPkgDeltas": ["maxDeltaAge": 5]])
                == PackageState(replicaId: "r", generation: 4, lastPurgedGeneration: 2, keepsDeltas: true))
        #expect(
            PackageState(properties: ["replicaID": "r", "layerServerGens": [["id": 0, "serverGen": 4], ["id": 1, "serverGen": 6]]])
                == PackageState(replicaId: "r", generation: 6, lastPurgedGeneration: nil, keepsDeltas: false))
        #expect(PackageState(properties: ["url": "u"]) == nil, "a tile package")
        #expect(ScheduledUpdatePlan.applyDeltas([Self.d(5), Self.d(7)]).deltaBytes == 212)
    }
}
