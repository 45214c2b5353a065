import Hummingbird
import OutpostService
import OutpostWire

/// The job runner's queue at `/arcgis/rest/admin/jobs` (docs/operations.md, "Jobs"): jobs
/// running and waiting, each caller's share and the limits. An administrator's.
struct JobsController: Sendable {
    let runner: JobRunner

    func addRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.read("rest/admin/jobs") { _, c in RESTResponse.json(Self.json(runner.load), parameters: c.form.parameters) }
    }

    static func json(_ load: JobLoad) -> JSONValue {
        let callers = load.perCaller.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { JSONValue.object(["caller": .string($0.key), "jobs": .int(Int64($0.value))]) }
        return [
            "running": .int(Int64(load.running)), "queued": .int(Int64(load.queued)), "callers": .array(callers),
            "limits": [
                "running": .int(Int64(load.limits.running)), "queued": .int(Int64(load.limits.queued)),
                "perUser": .int(Int64(load.limits.perUser)),
            ],
        ]
    }
}
