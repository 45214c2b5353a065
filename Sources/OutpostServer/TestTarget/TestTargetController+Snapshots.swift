import Foundation
import Hummingbird
import OutpostStorage
import OutpostWire

extension TestTargetController {
    /// `snapshots` (GET: the list; POST `name=`: save), `snapshots/:name/restore`,
    /// `snapshots/:name/delete` and `reset` (restores `start`, taken as the target started).
    func addSnapshotRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes
            .get("snapshots") { _, c in try await listSnapshots(c.form.parameters) }
            .post("snapshots") { _, c in try await saveSnapshot(c.form.parameters) }
            .change("snapshots/:name/restore") { _, c in
                try await restoreSnapshot(try Self.snapshotName(c.parameters.get("name") ?? ""), c.form.parameters)
            }
            .change("snapshots/:name/delete") { _, c in
                let name = try Self.changeableSnapshotName(c.parameters.get("name") ?? "")
                try await StoreCall.run { try TestTargetSnapshots.serially { try store.snapshots.delete(name) } }
                return RESTResponse.json(["success": true, "deleted": .string(name.text)], parameters: c.form.parameters)
            }
            .change("reset") { _, c in try await restoreSnapshot(.start, c.form.parameters) }
    }

    func listSnapshots(_ parameters: RequestParameters) async throws -> Response {
        let listed = try await StoreCall.run { try TestTargetSnapshots.serially { try store.snapshots.list() } }
        return RESTResponse.json(["snapshots": .array(listed.map(Self.json))], parameters: parameters)
    }

    func saveSnapshot(_ parameters: RequestParameters) async throws -> Response {
        guard let text = parameters["name"] else { throw ArcGISError.missingParameter("name") }
        let name = try Self.changeableSnapshotName(text)
        let saved = try await StoreCall.run { try TestTargetSnapshots.serially { try store.snapshots.save(name) } }
        return RESTResponse.json(["snapshot": Self.json(saved)], parameters: parameters)
    }

    func restoreSnapshot(_ name: SnapshotName, _ parameters: RequestParameters) async throws -> Response {
        let started = ContinuousClock.now
        try await StoreCall.run { try TestTargetSnapshots.serially { try store.snapshots.restore(name) } }
        target.snapshotsRestored()
        let elapsed = started.duration(to: .now)
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return RESTResponse.json(["restored": .string(name.text), "milliseconds": .int(milliseconds)], parameters: parameters)
    }

    /// A name from the request, checked before anything else is done with it.
    static func snapshotName(_ text: String) throws -> SnapshotName {
        do { return try SnapshotName(text) } catch { throw ArcGISError.invalidParameter("name", error.description) }
    }

    /// A name to save or delete: not `start`, the server's own snapshot that `reset` restores.
    static func changeableSnapshotName(_ text: String) throws -> SnapshotName {
        let name = try snapshotName(text)
        guard name.text.lowercased() != SnapshotName.start.text else {
            throw ArcGISError.invalidParameter(
                "name", "'start' is the server's own snapshot, taken as the test target started (reset restores it): save under another name.")
        }
        return name
    }

    static func json(_ info: SnapshotInfo) -> JSONValue {
        ["name": .string(info.name), "created": .int(info.created), "bytes": .int(info.bytes)]
    }
}
