import Foundation
import Hummingbird
import OutpostWire

/// The organisation page's operations: whether the server is healthy (`rest/info/healthCheck`),
/// its backups (`rest/admin/backups`), one taken now (`rest/admin/backups/create`) or downloaded
/// (`backup.tar`, the backup's `download` passed through), the job queue (`rest/admin/jobs`) and
/// storage per owner (`rest/admin/storage`) and, when asked, per service.
extension HomeController {
    var operationActions: [String: Action] { ["takeBackup": { try await takeBackup($0) }] }

    /// The operations section of `organization.html` (markup, escaped).
    func operationsSection(_ home: HomeRequest) async throws -> String {
        var out = "<section aria-labelledby=\"health\"><h2 id=\"health\">Health</h2>"
        do {
            _ = try await home.get("/arcgis/rest/info/healthCheck")
            out += "<p>The server and its database answer.</p>"
        } catch let failure as HomeFailure {
            out += "<p role=\"alert\">The server is not ready: \(HTMLText.escape(failure.text))</p>"
        }
        out += "</section>"
        return out + (try await backupsSection(home)) + (try await jobsSection(home)) + (try await storageSection(home))
    }

    /// The backups (`rest/admin/backups`), or why there are none to show.
    func backupsSection(_ home: HomeRequest) async throws -> String {
        var out = "<section aria-labelledby=\"backups-heading\"><h2 id=\"backups-heading\">Backups</h2>"
        let answer: JSONValue
        do {
            answer = try await home.get("/arcgis/rest/admin/backups")
        } catch let failure as HomeFailure {
            return out + "<p>\(HTMLText.escape(failure.text))</p></section>"
        }
        let backups = answer["backups"]?.arrayValue ?? []
        if backups.isEmpty {
            out += "<p>No backup has been taken yet.</p>"
        } else {
            out += "<div class=\"table-wrap\"><table id=\"backups\"><caption>Backups, newest first</caption><thead><tr>"
            for heading in ["Backup", "Taken", "Generation", "Store", "Files", "Size", "Download"] { out += "<th scope=\"col\">\(heading)</th>" }
            out += "</tr></thead><tbody>"
            for backup in backups {
                let name = backup["name"]?.stringValue ?? ""
                out += "<tr><th scope=\"row\">\(HTMLText.escape(name))</th>"
                out += "<td>\(HTMLText.date(milliseconds: backup["created"]?.int64Value))</td><td>\(backup["generation"]?.int64Value ?? 0)</td>"
                out += "<td>\(HTMLText.escape(backup["store"]?["id"]?.stringValue ?? "")) (epoch \(backup["store"]?["epoch"]?.int64Value ?? 0))</td>"
                out += "<td>\(backup["files"]?.int64Value ?? 0)</td><td>\(HTMLText.bytes(backup["bytes"]?.int64Value ?? 0))</td>"
                out += "<td><a href=\"/arcgis/home/backup.tar?name=\(HTMLText.query(name))\">\(HTMLText.escape(name)).tar</a></td></tr>"
            }
            out += "</tbody></table></div>"
        }
        if answer["canTake"]?.boolValue == true {
            out += "<form method=\"post\" action=\"/arcgis/home/actions/takeBackup\" id=\"backup-form\">\(HTMLText.csrfField(home.session))"
            out += "<input type=\"hidden\" name=\"return\" value=\"organization.html\"><button type=\"submit\">Take a backup now</button></form>"
        } else {
            out += "<p>This server's data is in PostgreSQL: back it up with PostgreSQL's tools (docs/operations.md).</p>"
        }
        out +=
            "<p class=\"hint\">Restore one with <code>tar -xf NAME.tar</code>, then <code>outpost restore NAME</code> (docs/operations.md).</p></section>"
        return out
    }

    /// The job runner's queue (`rest/admin/jobs`).
    func jobsSection(_ home: HomeRequest) async throws -> String {
        var out = "<section aria-labelledby=\"jobs-heading\"><h2 id=\"jobs-heading\">Jobs</h2>"
        let queue = try await home.get("/arcgis/rest/admin/jobs")
        let limits = queue["limits"]
        out += "<p id=\"jobs-now\">\(queue["running"]?.int64Value ?? 0) running (at most \(limits?["running"]?.int64Value ?? 0) at once), "
        out += "\(queue["queued"]?.int64Value ?? 0) waiting (at most \(limits?["queued"]?.int64Value ?? 0)); "
        out += "each member may have \(limits?["perUser"]?.int64Value ?? 0) running or waiting.</p>"
        let callers = queue["callers"]?.arrayValue ?? []
        if !callers.isEmpty {
            out += "<div class=\"table-wrap\"><table id=\"jobs\"><caption>Jobs by who started them</caption><thead><tr>"
            out += "<th scope=\"col\">Started by</th><th scope=\"col\">Jobs</th></tr></thead><tbody>"
            for caller in callers {
                let who = (caller["caller"]?.stringValue ?? "").replacingOccurrences(of: "user:", with: "")
                out += "<tr><th scope=\"row\">\(HTMLText.escape(who))</th><td>\(caller["jobs"]?.int64Value ?? 0)</td></tr>"
            }
            out += "</tbody></table></div>"
        }
        return out + "</section>"
    }

    /// Storage per owner (`rest/admin/storage`): their items and the bytes those hold; each
    /// service's bytes on disk (`rest/admin/storage/services`) when the page is asked to measure.
    func storageSection(_ home: HomeRequest) async throws -> String {
        let answer = try await home.get("/arcgis/rest/admin/storage")
        var out = "<section aria-labelledby=\"storage-heading\"><h2 id=\"storage-heading\">Storage</h2>"
        out += "<div class=\"table-wrap\"><table id=\"storage\"><caption>Items and their files by owner</caption><thead><tr>"
        out += "<th scope=\"col\">Owner</th><th scope=\"col\">Items</th><th scope=\"col\">Size</th></tr></thead><tbody>"
        for owner in answer["owners"]?.arrayValue ?? [] {
            let name = owner["owner"]?.stringValue ?? ""
            let label = name == "outpost" ? "outpost (the server's own items)" : name
            out += "<tr><th scope=\"row\">\(HTMLText.escape(label))</th><td>\(owner["items"]?.int64Value ?? 0)</td>"
            out += "<td>\(HTMLText.bytes(owner["bytes"]?.int64Value ?? 0))</td></tr>"
        }
        out += "</tbody></table></div>"
        // Measuring reads the whole embedded database: only when the administrator asks.
        guard home.form.string("measure") == "services" else {
            out += "<p><a id=\"measure-services\" href=\"/arcgis/home/organization.html?measure=services#service-storage\">"
            return out + "Measure each service's size on disk</a> (reads the whole database; may take a while).</p></section>"
        }
        let services = try await home.get("/arcgis/rest/admin/storage/services")
        out += "<div class=\"table-wrap\"><table id=\"service-storage\"><caption>Services on disk</caption><thead><tr>"
        out += "<th scope=\"col\">Service</th><th scope=\"col\">Kind</th><th scope=\"col\">Size</th></tr></thead><tbody>"
        for service in services["services"]?.arrayValue ?? [] {
            out += "<tr><th scope=\"row\">\(HTMLText.escape(service["name"]?.stringValue ?? ""))</th>"
            out += "<td>\(HTMLText.escape(service["type"]?.stringValue ?? ""))</td><td>\(HTMLText.bytes(service["bytes"]?.int64Value ?? 0))</td></tr>"
        }
        return out + "</tbody></table></div></section>"
    }

    /// `backup.tar?name=`: the backup's download from the REST API, as the signed-in user (an
    /// administrator; anyone else gets the REST API's refusal).
    func backupDownload(_ home: HomeRequest) async throws -> Response {
        let name = home.form.string("name") ?? ""
        // A backup folder's name: letters, digits, `-`, `_`, `.`; never `..` or a leading dot.
        guard (1...128).contains(name.utf8.count), !name.hasPrefix("."), !name.contains(".."),
            name.utf8.allSatisfy({
                [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ".")].contains($0) || (48...57).contains($0)
                    || (65...90).contains($0) || (97...122).contains($0)
            })
        else {
            return HomePage(
                title: "No such backup", section: nil, session: home.session, main: "<p role=\"alert\">No such backup.</p>", status: .notFound
            )
            .response
        }
        return try await home.gateway.passThrough(
            "/arcgis/rest/admin/backups/\(name)/download", session: home.session, original: home.request, context: home.context)
    }

    func takeBackup(_ home: HomeRequest) async throws -> Response {
        let answer = try await home.post("/arcgis/rest/admin/backups/create")
        let name = answer["backup"]?["name"]?.stringValue ?? ""
        return home.redirect(to: "organization.html", done: "Backup \(name) taken.")
    }
}
