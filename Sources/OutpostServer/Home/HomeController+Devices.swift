import Foundation
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// Devices (`devices.html`): per feature service, the replicas the REST API lets the user
/// manage (their own; an admin all), with owner, last sync, generations and whether the service
/// changed since; idle ones marked; one unregistered through `unRegisterReplica`.
extension HomeController {
    var devicePages: [String: Page] { ["devices.html": { try await devicesPage($0) }] }

    var deviceActions: [String: Action] { ["unregisterReplica": { try await unregisterReplica($0) }] }

    /// Days without a sync after which a replica is shown as idle (`?idle=N` changes it).
    static let defaultIdleDays = 30

    func devicesPage(_ home: HomeRequest) async throws -> HomePage {
        if home.session.user == nil, home.session.securityOn { return signInNeeded(home, page: "devices.html") }
        guard let service = home.form.string("service"), !service.isEmpty else { return try await serviceChoice(home) }
        guard HomeInputs.isServiceName(service) else { throw HomeFailure(message: "'\(service)' is not a service name.", code: 400) }
        let idleDays = max(1, min(3650, home.form.string("idle").flatMap(Int.init) ?? Self.defaultIdleDays))
        let path = "/arcgis/rest/services/\(service)/FeatureServer"
        let replicas = try await home.get(path + "/replicas", [("returnDetails", "true")]).arrayValue ?? []
        let layers = try await home.get(path + "/layers")
        var edited: [Int64: Int64] = [:]
        for layer in (layers["layers"]?.arrayValue ?? []) + (layers["tables"]?.arrayValue ?? []) {
            if let id = layer["id"]?.int64Value { edited[id] = layer["editingInfo"]?["lastEditDate"]?.int64Value ?? 0 }
        }
        let now = clock.milliseconds()
        let here = "devices.html?service=\(HTMLText.query(service))"
        var main = "<p><a href=\"/arcgis/home/devices.html\">All services</a> · Service <strong>\(HTMLText.escape(service))</strong>. "
        main += "A device is idle when it has not synced for \(idleDays) days.</p>"
        guard !replicas.isEmpty else {
            main += "<p>No device has taken this service offline\(home.session.isAdmin ? "" : " as you").</p>"
            return HomePage(title: "Devices", section: .devices, session: home.session, main: main)
        }
        main += "<div class=\"table-wrap\"><table id=\"devices\"><caption>Replicas of \(HTMLText.escape(service))</caption><thead><tr>"
        for heading in ["Replica", "Owner", "Created", "Last sync", "Generations", "Service changed since", "State", "Actions"] {
            main += "<th scope=\"col\">\(heading)</th>"
        }
        main += "</tr></thead><tbody>"
        for replica in replicas {
            let last = replica["lastSyncDate"]?.int64Value ?? replica["creationDate"]?.int64Value ?? 0
            let idle = now - last > Int64(idleDays) * 86_400_000
            let layerIds = replica["layers"]?.arrayValue?.compactMap { $0["id"]?.int64Value } ?? []
            let pending = layerIds.contains { (edited[$0] ?? 0) > last }
            let name = replica["replicaName"]?.stringValue ?? ""
            let id = replica["replicaID"]?.stringValue ?? ""
            main +=
                "<tr\(idle ? " class=\"idle\"" : "")><th scope=\"row\">\(HTMLText.escape(name))<br><span class=\"hint\">\(HTMLText.escape(id))</span></th>"
            main += "<td>\(HTMLText.escape(replica["replicaOwner"]?.stringValue ?? ""))</td>"
            main += "<td>\(HTMLText.date(milliseconds: replica["creationDate"]?.int64Value))</td>"
            main += "<td>\(HTMLText.date(milliseconds: replica["lastSyncDate"]?.int64Value))</td><td>\(Self.generations(replica))</td>"
            main += "<td>\(pending ? "Yes: changes to download" : "No")</td><td>\(idle ? "<strong>Idle</strong>" : "Active")</td>"
            main += "<td>\(unregisterForm(name: name, id: id, service: service, back: here, session: home.session))</td></tr>"
        }
        main += "</tbody></table></div>"
        return HomePage(title: "Devices", section: .devices, session: home.session, main: main)
    }

    /// The feature services to choose from.
    private func serviceChoice(_ home: HomeRequest) async throws -> HomePage {
        let directory = try await home.get("/arcgis/rest/services")
        var names = (directory["services"]?.arrayValue ?? []).filter { $0["type"]?.stringValue == "FeatureServer" }.compactMap {
            $0["name"]?.stringValue
        }
        for folder in (directory["folders"]?.arrayValue ?? []).compactMap(\.stringValue).prefix(50) where HomeInputs.isServiceName(folder) {
            let inFolder = try await home.get("/arcgis/rest/services/\(folder)")
            names += (inFolder["services"]?.arrayValue ?? []).filter { $0["type"]?.stringValue == "FeatureServer" }.compactMap {
                $0["name"]?.stringValue
            }
        }
        var main = "<p>Choose a feature service to see the devices that took it offline.</p><ul id=\"services\">"
        for name in names { main += "<li><a href=\"/arcgis/home/devices.html?service=\(HTMLText.query(name))\">\(HTMLText.escape(name))</a></li>" }
        return HomePage(title: "Devices", section: .devices, session: home.session, main: main + "</ul>")
    }

    /// A replica's server generations: one per replica, or each layer's.
    static func generations(_ replica: JSONValue) -> String {
        if let generation = replica["replicaServerGen"]?.int64Value { return "Server \(generation)" }
        let layers = replica["layerServerGens"]?.arrayValue ?? []
        let listed = layers.compactMap { layer -> String? in
            guard let id = layer["id"]?.int64Value, let generation = layer["serverGen"]?.int64Value else { return nil }
            return "layer \(id): \(generation)"
        }
        return listed.isEmpty ? "—" : HTMLText.escape(listed.joined(separator: ", "))
    }

    private func unregisterForm(name: String, id: String, service: String, back: String, session: HomeSession) -> String {
        var out = "<form method=\"post\" action=\"/arcgis/home/actions/unregisterReplica\">\(HTMLText.csrfField(session))"
        out +=
            "<input type=\"hidden\" name=\"service\" value=\"\(HTMLText.escape(service))\"><input type=\"hidden\" name=\"replica\" value=\"\(HTMLText.escape(id))\">"
        out += "<input type=\"hidden\" name=\"return\" value=\"\(HTMLText.escape(back))\">"
        out += "<details><summary>Unregister…</summary><p class=\"hint\">The device can no longer sync this replica.</p>"
        return out + "<button type=\"submit\" class=\"danger\">Unregister '\(HTMLText.escape(name))'</button></details></form>"
    }

    func unregisterReplica(_ home: HomeRequest) async throws -> Response {
        let service = home.form.string("service") ?? ""
        guard HomeInputs.isServiceName(service) else { throw HomeFailure(message: "'\(service)' is not a service name.", code: 400) }
        let replica = home.form.string("replica") ?? ""
        guard !replica.isEmpty, replica != "*" else { throw HomeFailure(message: "Name one replica.", code: 400) }
        _ = try await home.post("/arcgis/rest/services/\(service)/FeatureServer/unRegisterReplica", [("replicaID", replica)])
        return home.redirect(to: "devices.html?service=\(HTMLText.query(service))", done: "Replica unregistered.")
    }
}

extension HomeAssets {
    static var deviceScripts: [String: String] { [:] }
}
