import Hummingbird
import OutpostWire

/// The OfflinePackaging geoprocessing service at `/arcgis/rest/services/System/OfflinePackaging/GPServer`,
/// where `portals/self` points (docs/map-areas.md): its metadata and its tasks' (Appendix B).
struct PackagingController: Sendable {
    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("GPServer") { _, c in
                try Self.checkService(c)
                return RESTResponse.json(
                    OfflinePackagingTasks.service(currentVersion: FeatureServiceMetadata.currentVersion), parameters: c.form.parameters)
            }
            .read("GPServer/:task") { _, c in
                try Self.checkService(c)
                guard let task = OfflinePackagingTasks.task(c.parameters.get("task") ?? "") else {
                    throw ArcGISError(
                        kind: .notFound, message: "Task not found.", details: ["OfflinePackaging has no task '\(c.parameters.get("task") ?? "")'."])
                }
                return RESTResponse.json(task, parameters: c.form.parameters)
            }
    }

    /// The only geoprocessing service is the packaging one.
    static func checkService(_ c: OutpostRequestContext) throws {
        let name = try c.serviceName()
        guard name.caseInsensitiveCompare(OfflinePackagingTasks.serviceName) == .orderedSame else {
            throw ArcGISError(kind: .notFound, message: "Service not found.", details: ["There is no GPServer '\(name)'."])
        }
    }
}
