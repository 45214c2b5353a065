import Foundation
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// A web map's preplanned map areas on its item page (docs/map-areas.md): listed from the
/// portal (`Map2Area`), created, refreshed and deleted through the OfflinePackaging service and
/// the portal, as `MapAreaClient` (a map author's client) does.
extension HomeController {
    static let packaging = "/arcgis/rest/services/System/OfflinePackaging/GPServer"

    var mapAreaActions: [String: Action] {
        [
            "createMapArea": { try await createMapArea($0) }, "refreshMapArea": { try await refreshMapArea($0) },
            "deleteMapArea": { try await deleteMapArea($0) },
        ]
    }

    func mapAreasSection(_ home: HomeRequest, mapId: String) async throws -> String {
        let related = try await home.get(
            HomeRequest.portal + "/content/items/\(HTMLText.query(mapId))/relatedItems",
            [("relationshipTypes", "Map2Area"), ("direction", "forward")])
        let areas = related["relatedItems"]?.arrayValue ?? []
        let back = "item.html?id=\(HTMLText.query(mapId))"
        var out = "<section aria-labelledby=\"areas\"><h2 id=\"areas\">Map areas</h2>"
        if areas.isEmpty {
            out += "<p>This map has no map areas.</p>"
        } else {
            out += "<div class=\"table-wrap\"><table id=\"map-areas\"><caption>Map areas of this map</caption><thead><tr><th scope=\"col\">Title</th>"
            out += "<th scope=\"col\">Status</th><th scope=\"col\">Modified</th><th scope=\"col\">Update schedule</th><th scope=\"col\">Actions</th>"
            out += "</tr></thead><tbody>"
            for area in areas {
                let id = area["id"]?.stringValue ?? ""
                let title = area["title"]?.stringValue ?? id
                out += "<tr><th scope=\"row\"><a href=\"/arcgis/home/item.html?id=\(HTMLText.query(id))\">\(HTMLText.escape(title))</a></th>"
                out += "<td>\(HTMLText.escape(area["properties"]?["status"]?.stringValue ?? "unknown"))</td>"
                out += "<td>\(HTMLText.date(milliseconds: area["modified"]?.int64Value))</td>"
                out += "<td>\(HTMLText.escape(area["properties"]?["packageRefreshSchedule"]?.stringValue ?? "none"))</td><td>"
                if home.session.mayCreate {
                    out += areaButton("refreshMapArea", "Refresh '\(title)'", area: id, back: back, session: home.session)
                    out += areaButton("deleteMapArea", "Delete '\(title)'", area: id, back: back, session: home.session, danger: true)
                }
                out += "</td></tr>"
            }
            out += "</tbody></table></div>"
        }
        if home.session.mayCreate { out += areaForm(mapId: mapId, back: back, session: home.session) }
        return out + "</section>"
    }

    private func areaButton(_ action: String, _ label: String, area: String, back: String, session: HomeSession, danger: Bool = false) -> String {
        var out = "<form method=\"post\" action=\"/arcgis/home/actions/\(action)\" class=\"inline\">\(HTMLText.csrfField(session))"
        out +=
            "<input type=\"hidden\" name=\"area\" value=\"\(HTMLText.escape(area))\"><input type=\"hidden\" name=\"return\" value=\"\(HTMLText.escape(back))\">"
        if danger {
            // A second step: the delete button is inside a disclosure the user opens first.
            out +=
                "<details class=\"inline\"><summary>Delete…</summary><button type=\"submit\" class=\"danger\">\(HTMLText.escape(label))</button></details>"
        } else {
            out += "<button type=\"submit\" class=\"secondary\">\(HTMLText.escape(label))</button>"
        }
        return out + "</form> "
    }

    private func areaForm(mapId: String, back: String, session: HomeSession) -> String {
        var out = "<h3 id=\"new-area\">New map area</h3><form method=\"post\" action=\"/arcgis/home/actions/createMapArea\" id=\"area-form\">"
        out += HTMLText.csrfField(session)
        out +=
            "<input type=\"hidden\" name=\"map\" value=\"\(HTMLText.escape(mapId))\"><input type=\"hidden\" name=\"return\" value=\"\(HTMLText.escape(back))\">"
        out += "<label for=\"area-title\">Title</label><input id=\"area-title\" name=\"title\" required maxlength=\"250\">"
        out += "<label for=\"area-extent\">Extent <span class=\"hint\">(west, south, east, north in degrees)</span></label>"
        out += "<input id=\"area-extent\" name=\"extent\" required placeholder=\"13.0, 52.3, 13.8, 52.7\" pattern=\"[-0-9., ]+\">"
        out += "<label for=\"area-schedule\">Update schedule <span class=\"hint\">(a Quartz cron expression, optional)</span></label>"
        out += "<input id=\"area-schedule\" name=\"schedule\" placeholder=\"0 0 2 * * ?\">"
        return out + "<p><button type=\"submit\">Create map area</button></p></form>"
    }

    /// `createMapArea`: CreateMapArea (waited for: it answers the area's id), then SetupMapArea
    /// submitted; its packages are made while the user reads on.
    func createMapArea(_ home: HomeRequest) async throws -> Response {
        let map = home.form.string("map") ?? ""
        let title = home.form.string("title") ?? ""
        guard let box = HomeInputs.extent(home.form.string("extent") ?? "") else {
            throw HomeFailure(message: "The extent must be four numbers: west, south, east, north, with west < east and south < north.", code: 400)
        }
        var output: JSONObject = ["title": .string(title)]
        if let schedule = home.form.string("schedule"), !schedule.isEmpty { output["packageRefreshSchedule"] = .string(schedule) }
        let area: JSONValue = [
            "xmin": .double(box[0]), "ymin": .double(box[1]), "xmax": .double(box[2]), "ymax": .double(box[3]), "spatialReference": ["wkid": 4326],
        ]
        let created = try await packagingJob(
            home, "CreateMapArea",
            [("mapItemId", map), ("areaType", "ENVELOPE"), ("area", area.jsonText), ("outputName", JSONValue.object(output).jsonText)])
        guard let id = created.stringValue else { throw HomeFailure(message: "CreateMapArea answered no map area.", code: 500) }
        _ = try await home.post(Self.packaging + "/SetupMapArea/submitJob", [("mapAreaItemId", id)])
        return home.redirect(to: "item.html?id=\(HTMLText.query(map))", done: "Map area '\(title)' created; its packages are being made.")
    }

    func refreshMapArea(_ home: HomeRequest) async throws -> Response {
        let area = home.form.string("area") ?? ""
        let related = try await home.get(
            HomeRequest.portal + "/content/items/\(HTMLText.query(area))/relatedItems",
            [("relationshipTypes", "Area2Package"), ("direction", "forward")])
        let packages = (related["relatedItems"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.map {
            JSONValue.object(["itemId": .string($0)])
        }
        guard !packages.isEmpty else {
            throw HomeFailure(message: "The area has no packages yet: refresh it once it is complete.", code: 400)
        }
        _ = try await home.post(Self.packaging + "/RefreshMapAreaPackage/submitJob", [("packages", JSONValue.array(packages).jsonText)])
        return home.redirect(to: home.returnPath ?? "content.html", done: "The area's packages are being refreshed.")
    }

    func deleteMapArea(_ home: HomeRequest) async throws -> Response {
        let area = home.form.string("area") ?? ""
        let item = try await home.deletePortalItem(area)
        return home.redirect(to: home.returnPath ?? "content.html", done: "Map area '\(item["title"]?.stringValue ?? area)' deleted.")
    }

    /// Submits a packaging task and waits (at most a minute) for its one output.
    private func packagingJob(_ home: HomeRequest, _ task: String, _ fields: [(String, String)]) async throws -> JSONValue {
        let submitted = try await home.post(Self.packaging + "/\(task)/submitJob", fields)
        guard let job = submitted["jobId"]?.stringValue else { throw HomeFailure(message: "\(task) answered no job.", code: 500) }
        let path = Self.packaging + "/\(task)/jobs/\(HTMLText.query(job))"
        for _ in 0..<600 {
            let status = try await home.get(path)
            switch status["jobStatus"]?.stringValue {
            case "esriJobSucceeded":
                let name = status["results"]?.objectValue?.keys.first ?? ""
                return try await home.get(path + "/results/\(HTMLText.query(name))")["value"] ?? .null
            case "esriJobFailed", "esriJobCancelled", "esriJobTimedOut":
                let messages = status["messages"]?.arrayValue?.compactMap { $0["description"]?.stringValue } ?? []
                throw HomeFailure(message: "\(task) failed: \(messages.joined(separator: " "))", code: 400)
            default:
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw HomeFailure(message: "\(task) did not finish within a minute.", code: 504)
    }
}
