import Foundation
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire

@testable import OutpostServer

/// The matrix's requests for versions (`Parcels`), tile services (`DemoBasemap`,
/// `DemoVectorBasemap`), the packaging service, the directory and the plain routes.
extension MatrixCase {
    static let parcels = AuthorizationSession.parcels
    static let accesses = ["private", "protected", "public"]

    static func version(_ access: String) -> Subject { AuthorizationSession.subject(access) }

    static var versionCases: [MatrixCase] {
        [
            .read("VersionManagementServer") { _ in "\(parcels)?f=json" },
            .list(
                "VersionManagementServer/versions", "private", subject: version("private"), path: { _ in "\(parcels)/versions?f=json" },
                shows: { s, a in holds(a.json["versions"], "versionName", s.objects.versions["private"]!) }),
            .post("VersionManagementServer/create") { s, _ in
                Probe(path: "\(parcels)/create", fields: [("f", "json"), ("versionName", s.unique("made")), ("accessPermission", "public")])
            },
            .read(
                "FeatureServer/:layer/query", "gdbVersion of the owner's private version", subject: version("private"),
                alsoNeeds: "VersionManagementServer/versions/:version"
            ) { s in
                "/arcgis/rest/services/Parcels/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json&gdbVersion=\(s.objects.versions["private"]!)"
            },
        ]
            + accesses.flatMap { access in
                [
                    MatrixCase.read("VersionManagementServer/versions/:version", access, subject: version(access)) { s in
                        "\(parcels)/versions/\(s.objects.versions[access]!)?f=json"
                    },
                    .read("VersionManagementServer/versions/:version/conflicts", access, subject: version(access)) { s in
                        "\(parcels)/versions/\(s.objects.versions[access]!)/conflicts?f=json"
                    },
                    .post("VersionManagementServer/versions/:version/reconcile", access, subject: version(access)) { s, _ in
                        Probe(path: "\(parcels)/versions/\(s.objects.versions[access]!)/reconcile", fields: [("f", "json"), ("withPost", "true")])
                    },
                    .post(
                        "VersionManagementServer/versions/:version/delete", access, subject: version(access),
                        make: { s, _ in
                            let name = try await s.freshVersion(access: access)
                            return Probe(path: "\(parcels)/versions/\(name)/delete", fields: [("f", "json")], object: name)
                        }, happened: { s, p in try s.store.versions.version(service: "Parcels", named: p.object) == nil }),
                    .post(
                        "FeatureServer/:layer/applyEdits", "gdbVersion of the owner's \(access) version", subject: version(access),
                        alsoNeeds: "VersionManagementServer/versions/:version/reconcile"
                    ) { s, _ in
                        Probe(
                            path: "/arcgis/rest/services/Parcels/FeatureServer/0/applyEdits",
                            fields: [
                                ("f", "json"), ("gdbVersion", s.objects.versions[access]!),
                                ("updates", #"[{"attributes":{"OBJECTID":1}}]"#),
                            ])
                    },
                ]
            }
    }

    static let raster = "/arcgis/rest/services/DemoBasemap/MapServer"
    static let vector = "/arcgis/rest/services/DemoVectorBasemap/VectorTileServer"

    static var tileCases: [MatrixCase] {
        [
            .read("MapServer") { _ in "\(raster)?f=json" },
            .read("MapServer/tile/:level/:row/:col") { _ in "\(raster)/tile/0/0/0" },
            .read("MapServer/tilemap/:level/:row/:col/:width/:height") { _ in "\(raster)/tilemap/0/0/0/1/1?f=json" },
            .read("VectorTileServer") { _ in "\(vector)?f=json" },
            .read("VectorTileServer/tile/:level/:row/:col") { _ in "\(vector)/tile/0/0/0.pbf" },
            .read("VectorTileServer/tilemap/:level/:row/:col/:width/:height") { _ in "\(vector)/tilemap/0/0/0/1/1?f=json" },
            .read("VectorTileServer/resources/styles") { _ in "\(vector)/resources/styles?f=json" },
            .read("VectorTileServer/resources/styles/root.json") { _ in "\(vector)/resources/styles/root.json" },
            .read("VectorTileServer/resources/sprites/:file") { _ in "\(vector)/resources/sprites/sprite.json" },
            .read("VectorTileServer/resources/fonts/:stack/:range") { _ in "\(vector)/resources/fonts/Noto%20Sans%20Regular/0-255.pbf" },
            .post("MapServer/exportTiles") { _, _ in Probe(path: "\(raster)/exportTiles", fields: [("f", "json"), ("levels", "0")]) },
            .post("VectorTileServer/exportTiles") { _, _ in Probe(path: "\(vector)/exportTiles", fields: [("f", "json"), ("levels", "0")]) },
            .post("MapServer/estimateExportTilesSize") { _, _ in
                Probe(path: "\(raster)/estimateExportTilesSize", fields: [("f", "json"), ("levels", "0")])
            },
            .read("MapServer/exportTiles/jobs/:job", subject: owned) { s in "\(raster)/exportTiles/jobs/\(s.objects.exportJob)?f=json" },
            .read("MapServer/exportTiles/jobs/:job/results/:parameter", subject: owned) { s in
                "\(raster)/exportTiles/jobs/\(s.objects.exportJob)/results/out_service_url?f=json"
            },
            .read("VectorTileServer/exportTiles/jobs/:job", subject: owned) { s in "\(vector)/exportTiles/jobs/\(s.objects.vectorJob)?f=json" },
            .read("VectorTileServer/exportTiles/jobs/:job/results/:parameter", subject: owned) { s in
                "\(vector)/exportTiles/jobs/\(s.objects.vectorJob)/results/out_service_url?f=json"
            },
            .read("VectorTileServer/jobs/:job", subject: owned) { s in "\(vector)/jobs/\(s.objects.vectorJob)?f=json" },
            .read("VectorTileServer/jobs/:job/results/:parameter", subject: owned) { s in
                "\(vector)/jobs/\(s.objects.vectorJob)/results/out_service_url?f=json"
            },
            .read("MapServer/estimateExportTilesSize/jobs/:job", subject: owned) { s in
                "\(raster)/estimateExportTilesSize/jobs/\(s.objects.estimateJob)?f=json"
            },
            .read("MapServer/estimateExportTilesSize/jobs/:job/results/:parameter", subject: owned) { s in
                "\(raster)/estimateExportTilesSize/jobs/\(s.objects.estimateJob)/results/out_service_url?f=json"
            },
            .read("rest/directories/arcgisoutput/:job", subject: owned) { s in "/arcgis/rest/directories/arcgisoutput/\(s.objects.exportJob)?f=json"
            },
            .read("rest/directories/arcgisoutput/:job/:file", subject: owned) { s in
                "/arcgis/rest/directories/arcgisoutput/\(s.objects.exportJob)/\(s.objects.exportFile)"
            },
        ]
    }

    static let gp = AuthorizationSession.gp

    static var packagingCases: [MatrixCase] {
        [
            .read("GPServer") { _ in "\(gp)?f=json" },
            .read("GPServer/:task") { _ in "\(gp)/CreateMapArea?f=json" },
            .post("GPServer/:task/submitJob") { _, _ in
                Probe(path: "\(gp)/CreateMapArea/submitJob", fields: [("f", "json"), ("mapItemId", "00000000000000000000000000000000")])
            },
            .read("GPServer/:task/jobs/:job", subject: owned) { s in "\(gp)/CreateMapArea/jobs/\(s.objects.areaJob)?f=json" },
            .read("GPServer/:task/jobs/:job/results/:parameter", subject: owned) { s in
                "\(gp)/CreateMapArea/jobs/\(s.objects.areaJob)/results/\(OfflinePackagingTasks.outputName(of: "CreateMapArea") ?? "")?f=json"
            },
        ]
    }

    static var directoryCases: [MatrixCase] {
        let signIn: Make = { _, _ in
            Probe(path: "", fields: [("f", "json"), ("username", "eve"), ("password", "eve-password"), ("expiration", "5")])
        }
        func at(_ path: String, _ make: @escaping Make) -> Make {
            { s, who in
                var probe = try await make(s, who)
                probe.path = path
                return probe
            }
        }
        return [
            .read("health/live") { _ in "/health/live" },
            .read("health/ready") { _ in "/health/ready" },
            .read("metrics") { _ in "/metrics" },
            .read("arcgis/rest/static/preview.js") { _ in "/arcgis/rest/static/preview.js" },
            .read("arcgis/rest/static/leaflet/**", lenient: true) { _ in "/arcgis/rest/static/leaflet/leaflet.css" },
            .read("rest/info") { _ in "/arcgis/rest/info?f=json" },
            .read("rest/info/healthCheck") { _ in "/arcgis/rest/info/healthCheck?f=json" },
            .read("tokens") { _ in "/arcgis/tokens?f=json" },
            .post("tokens/generateToken", make: at("/arcgis/tokens/generateToken", signIn)),
            .post("generateToken", make: at("/arcgis/sharing/rest/generateToken", signIn)),
            .read("rest/services") { _ in "/arcgis/rest/services?f=json" },
            .read("rest/services/:service") { _ in "/arcgis/rest/services/Field?f=json" },
            .read("rest/**") { _ in "/arcgis/rest/nothing/here?f=json" },
        ]
    }
}
