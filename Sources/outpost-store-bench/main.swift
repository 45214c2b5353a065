// Store-level benchmark of the two backends side by side (bench/postgres.py runs it): the same
// operations on SpatiaLite and on PostgreSQL, rounds alternating which goes first, one JSON
// line per measurement. Usage: outpost-store-bench POSTGRES_URL DATA_DIR [points] [rounds]
import Foundation
import OutpostGeometry
import OutpostPostgres
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostWire

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: outpost-store-bench POSTGRES_URL DATA_DIR [points] [rounds]\n".utf8))
    exit(2)
}
nonisolated(unsafe) let admin = try PostgresLocation(arguments[1])
nonisolated(unsafe) let dataDirectory = arguments[2]
nonisolated(unsafe) let points = arguments.count > 3 ? Int(arguments[3]) ?? 1_000_000 : 1_000_000
let rounds = arguments.count > 4 ? Int(arguments[4]) ?? 3 : 3

enum StoreBench {
    static func emit(_ name: String, _ backend: String, _ round: Int, seconds: Double, extra: [String: Double] = [:]) {
        var object: [String: Any] = ["measure": name, "backend": backend, "round": round, "seconds": seconds]
        for (key, value) in extra { object[key] = value }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = try body()
        return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Runs `body` on `count` threads at once; returns when all are done.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
        let group = DispatchGroup()
        let failure = NSLock()
        nonisolated(unsafe) var first: Error?
        for index in 0..<count {
            group.enter()
            Thread {
                do { try body(index) } catch { failure.withLock { first = first ?? error } }
                group.leave()
            }.start()
        }
        group.wait()
        if let first { throw first }
    }

    /// A fresh backend of each kind, holding one point layer.
    static func makeBackend(_ kind: String, round: Int) throws -> any SyncBackend {
        switch kind {
        case "SpatiaLite":
            let folder = (dataDirectory as NSString).appendingPathComponent("spatialite-\(round)")
            try? FileManager.default.removeItem(atPath: folder)
            return try SpatiaLiteBackend(dataDirectory: folder)
        default:
            var location = admin
            location.database = "outpost_bench_\(round)"
            let connection = try PostgresConnection(admin)
            try connection.execute("DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)")
            try connection.execute("CREATE DATABASE \(location.database)")
            return try PostgresBackend(location, maximumConnections: 8)
        }
    }

    static let service = ServiceDefinition(
        name: "Bench", spatialReference: .wgs84, maxRecordCount: 2000,
        layers: [
            LayerDefinition(
                id: 0, name: "Points", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
                fields: LayerDefinition.withSystemFields([
                    FieldDefinition(name: "label", type: .string, length: 32), FieldDefinition(name: "value", type: .integer),
                ]), maxRecordCount: 2000)
        ])

    /// Points on a 1000-wide grid over (0…100, 0…100): an envelope of 10 × 1 degrees holds ~1,000 of a million.
    static func rows(_ count: Int) -> [FeatureRow] {
        let side = 1000
        return (0..<count).map { n in
            FeatureRow(
                attributes: ["label": .string("p\(n)"), "value": .int(Int64(n % 1000))],
                geometry: .point(Point(x: Double(n % side) / 10, y: Double(n / side) / Double(max(1, count / side)) * 100)))
        }
    }

    static func createReplica(_ backend: some SyncBackend, output: ReplicaOutput) throws -> ReplicaDefinition {
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", "r\(UUID().uuidString.prefix(8))")]))
        let plan = try ReplicaPlanner.plan(
            request, service: try backend.schema.service(named: "Bench").definition, replicaId: GlobalID.make(), owner: "bench", takenNames: [],
            now: backend.clock.milliseconds())
        let (definition, _) = try backend.sync.exportReplica(plan, to: output, serviceURL: "", serviceJSON: .null, layerJSON: [:], phase: { _ in })
        return try backend.replicas.registerReplica(definition)
    }

    static func syncPlan(_ replica: ReplicaDefinition, edits: LayerEdits?) throws -> SyncPlan {
        try SyncPlanner.plan(
            try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)])), replica: replica, edits: edits.map { [$0] })
    }

    static func globalIds(_ backend: some SyncBackend, limit: Int) throws -> [String] {
        var query = LayerQuery()
        query.outFields = ["GlobalID"]
        query.returnGeometry = false
        query.resultRecordCount = 2000
        var ids: [String] = []
        while ids.count < limit {
            query.resultOffset = ids.count
            guard case .features(let page) = try backend.features.query(query, service: "Bench", layer: 0), !page.features.isEmpty else { break }
            ids += page.features.compactMap { $0.attributes[1].stringValue }
        }
        return Array(ids.prefix(limit))
    }

    static func run(_ kind: String, round: Int) throws {
        let backend = try makeBackend(kind, round: round)
        _ = try backend.schema.createService(service)
        let data = rows(points)
        let (_, importSeconds) = try timed { try backend.edits.insert(data, service: "Bench", layer: 0) }
        emit("import \(points) points", kind, round, seconds: importSeconds)

        // The envelope query: ~1,000 features, every field and the geometry; median of 30.
        var query = LayerQuery()
        query.outFields = ["*"]
        query.geometry = QueryGeometry(text: "40,40,50,41", geometryType: .envelope, inSR: .wgs84)
        var times: [Double] = []
        var found = 0
        for _ in 0..<30 {
            let (answer, seconds) = try timed { try backend.features.query(query, service: "Bench", layer: 0) }
            if case .features(let page) = answer { found = page.features.count }
            times.append(seconds)
        }
        emit("envelope query", kind, round, seconds: times.sorted()[times.count / 2], extra: ["features": Double(found)])

        // A replica of every point, as a GeoPackage.
        let file = (dataDirectory as NSString).appendingPathComponent("replica-\(kind)-\(round).gpkg")
        try? FileManager.default.removeItem(atPath: file)
        let (replica, exportSeconds) = try timed { try createReplica(backend, output: .geoPackage(path: file)) }
        emit("replica of \(points) points", kind, round, seconds: exportSeconds)

        // Single online edits, one thread then three (for PostgreSQL: three backends, as three processes).
        let ids = try globalIds(backend, limit: 60_000)
        let (_, oneThread) = try timed {
            for n in 0..<300 {
                let edit = LayerEdits(layerId: 0, updates: [EditFeature(attributes: ["GlobalID": .string(ids[n]), "value": .int(Int64(n))])])
                _ = try backend.edits.applyEdits(service: "Bench", edits: [edit], options: EditOptions(useGlobalIds: true))
            }
        }
        emit("single edits, 1 writer", kind, round, seconds: oneThread, extra: ["per_second": 300 / oneThread])
        let writers: [any SyncBackend] =
            kind == "SpatiaLite"
            ? [backend, backend, backend]
            : try (0..<3).map { _ in try PostgresBackend((backend as! PostgresBackend).pool.location, maximumConnections: 2) }
        let (_, threeThreads) = try timed {
            try onThreads(3) { writer in
                for n in 0..<300 {
                    let id = ids[1000 + writer * 300 + n]
                    let edit = LayerEdits(layerId: 0, updates: [EditFeature(attributes: ["GlobalID": .string(id), "value": .int(Int64(n))])])
                    _ = try writers[writer].edits.applyEdits(service: "Bench", edits: [edit], options: EditOptions(useGlobalIds: true))
                }
            }
        }
        emit("single edits, 3 writers", kind, round, seconds: threeThreads, extra: ["per_second": 900 / threeThreads])

        // A sync upload of 20,000 edits: 10,000 adds, 8,000 updates, 2,000 deletes.
        let device = try createReplica(backend, output: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)))
        let upload = LayerEdits(
            layerId: 0,
            adds: (0..<10_000).map { n in
                EditFeature(
                    attributes: ["GlobalID": .string(GlobalID.make()), "label": .string("new\(n)"), "value": .int(1)],
                    geometry: ["x": .double(1), "y": .double(1)])
            },
            updates: (0..<8_000).map { n in EditFeature(attributes: ["GlobalID": .string(ids[5000 + n]), "label": .string("u\(n)")]) },
            deletes: (0..<2_000).map { n in .globalId(ids[20_000 + n]) })
        let (outcome, uploadSeconds) = try timed {
            try backend.sync.applySyncUpload(try syncPlan(device, edits: upload), fingerprint: [UInt8(round)])
        }
        precondition(outcome.results[0].all.allSatisfy(\.success), "the upload applies")
        emit("sync upload of 20,000 edits", kind, round, seconds: uploadSeconds)

        // A download of 20,000 changes (made online after the replica) of the million.
        let before = try createReplica(backend, output: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)))
        do {
            for chunk in stride(from: 0, to: 20_000, by: 1_000) {
                let edits = LayerEdits(
                    layerId: 0,
                    updates: (chunk..<chunk + 1_000).map { n in
                        EditFeature(attributes: ["GlobalID": .string(ids[40_000 + n]), "label": .string("o\(n)")])
                    })
                _ = try backend.edits.applyEdits(service: "Bench", edits: [edits], options: EditOptions(useGlobalIds: true))
            }
        }
        _ = replica
        let reader = try require(try backend.replicas.replica(service: "Bench", id: before.id))
        var bytes = 0
        let (summary, downloadSeconds) = try timed {
            try backend.sync.writeSyncAnswer(try syncPlan(reader, edits: nil), upload: nil, write: { bytes += $0.count }, attachmentURL: nil)
        }
        emit("download of the changes", kind, round, seconds: downloadSeconds, extra: ["changes": Double(summary.changes), "bytes": Double(bytes)])

        // Fifty devices syncing at once, each a small upload (5 updates) and its download.
        let devices = try (0..<50).map { _ in try createReplica(backend, output: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil))) }
        let (_, fifty) = try timed {
            try onThreads(50) { index in
                let edits = LayerEdits(
                    layerId: 0,
                    updates: (0..<5).map { n in
                        EditFeature(attributes: ["GlobalID": .string(ids[35_000 + index * 5 + n]), "label": .string("d\(index)")])
                    })
                let plan = try syncPlan(devices[index], edits: edits)
                let upload = try backend.sync.applySyncUpload(plan, fingerprint: [UInt8(index)])
                _ = try backend.sync.writeSyncAnswer(plan, upload: upload, write: { _ in }, attachmentURL: nil)
            }
        }
        emit("50 devices syncing at once", kind, round, seconds: fifty)
        if let postgres = backend as? PostgresBackend { postgres.pool.close() }
    }

    struct Missing: Error {}

    static func require<T>(_ value: T?) throws -> T {
        guard let value else { throw Missing() }
        return value
    }
}

for round in 0..<rounds {
    let order = round % 2 == 0 ? ["SpatiaLite", "PostgreSQL"] : ["PostgreSQL", "SpatiaLite"]
    for kind in order { try StoreBench.run(kind, round: round) }
}
