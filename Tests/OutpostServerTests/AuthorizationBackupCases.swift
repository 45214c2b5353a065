import Foundation
import OutpostWire
import Testing

@testable import OutpostServer

/// The matrix's requests for the server's backups (`rest/admin/backups…`): an admin's only
/// (API keys never). The matrix's server has no `--backup-dir`, so an admitted call is answered
/// "not configured" (lenient: only an authorization refusal counts); `BackupRoutesTests` takes
/// real backups.
extension MatrixCase {
    static var backupCases: [MatrixCase] {
        [
            .read("rest/admin/backups", lenient: true) { _ in "/arcgis/rest/admin/backups?f=json" },
            MatrixCase(
                row: "rest/admin/backups/create", lenient: true,
                make: { _, _ in Probe(path: "/arcgis/rest/admin/backups/create", fields: [("f", "json")]) }),
            .read("rest/admin/backups/:backup", lenient: true) { _ in "/arcgis/rest/admin/backups/outpost-backup-none?f=json" },
            .read("rest/admin/backups/:backup/download", lenient: true) { _ in "/arcgis/rest/admin/backups/outpost-backup-none/download" },
            .read("rest/admin/jobs") { _ in "/arcgis/rest/admin/jobs?f=json" },
            .read("rest/admin/storage") { _ in "/arcgis/rest/admin/storage?f=json" },
            .read("rest/admin/storage/services") { _ in "/arcgis/rest/admin/storage/services?f=json" },
        ]
    }
}
