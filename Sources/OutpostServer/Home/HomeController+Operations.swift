import Foundation
import Hummingbird
import OutpostWire

/// The organisation page's operations: whether the server is healthy (`rest/info/healthCheck`)
/// and its backups (`rest/admin/backups`), one taken now (`rest/admin/backups/create`).
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
        out += "</section><section aria-labelledby=\"backups-heading\"><h2 id=\"backups-heading\">Backups</h2>"
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
            for heading in ["Backup", "Taken", "Generation", "Store", "Files", "Size"] { out += "<th scope=\"col\">\(heading)</th>" }
            out += "</tr></thead><tbody>"
            for backup in backups {
                out += "<tr><th scope=\"row\">\(HTMLText.escape(backup["name"]?.stringValue ?? ""))</th>"
                out += "<td>\(HTMLText.date(milliseconds: backup["created"]?.int64Value))</td><td>\(backup["generation"]?.int64Value ?? 0)</td>"
                out += "<td>\(HTMLText.escape(backup["store"]?["id"]?.stringValue ?? "")) (epoch \(backup["store"]?["epoch"]?.int64Value ?? 0))</td>"
                out += "<td>\(backup["files"]?.int64Value ?? 0)</td><td>\(HTMLText.bytes(backup["bytes"]?.int64Value ?? 0))</td></tr>"
            }
            out += "</tbody></table></div>"
        }
        if answer["canTake"]?.boolValue == true {
            out += "<form method=\"post\" action=\"/arcgis/home/actions/takeBackup\" id=\"backup-form\">\(HTMLText.csrfField(home.session))"
            out += "<input type=\"hidden\" name=\"return\" value=\"organization.html\"><button type=\"submit\">Take a backup now</button></form>"
        } else {
            out += "<p>This server's data is in PostgreSQL: back it up with PostgreSQL's tools (docs/operations.md).</p>"
        }
        return out + "<p class=\"hint\">Restore one with <code>outpost restore</code> (docs/operations.md).</p></section>"
    }

    func takeBackup(_ home: HomeRequest) async throws -> Response {
        let answer = try await home.post("/arcgis/rest/admin/backups/create")
        let name = answer["backup"]?["name"]?.stringValue ?? ""
        return home.redirect(to: "organization.html", done: "Backup \(name) taken.")
    }
}
