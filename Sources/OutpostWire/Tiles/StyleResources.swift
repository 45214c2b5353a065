/// A vector tile service's style resources as given at import (`styles/root.json`,
/// `sprites/sprite[@2x].{json,png}`, `fonts/<font stack>/<range>.pbf`), laid out as ArcGIS
/// serves them under `VectorTileServer/resources/` (offline-maps.md §3.3).
public enum StyleResources {
    /// The folders a resource may sit in, and the file kinds each holds.
    static let folders: [String: [String]] = ["styles": [".json"], "sprites": [".json", ".png"], "fonts": [".pbf"], "info": [".json", ".png"]]

    /// Whether `path` names a resource that may be stored and served: a known folder, a font
    /// stack below `fonts/`, names of letters, digits, spaces and `-_.,@`, no `.`/`..`.
    public static func isValidPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let folder = parts.first, let kinds = folders[folder], parts.count == (folder == "fonts" ? 3 : 2) else { return false }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,@")
        guard parts.dropFirst().allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && $0.count <= 128 && $0.allSatisfy(allowed.contains) })
        else { return false }
        return kinds.contains { parts.last!.lowercased().hasSuffix($0) }
    }

    /// The content type a resource is served with.
    public static func contentType(_ path: String) -> String {
        if path.hasSuffix(".png") { return "image/png" }
        if path.hasSuffix(".pbf") { return "application/x-protobuf" }
        return "application/json; charset=utf-8"
    }

    /// A given style made to point at this service: its vector source at the service
    /// (`../../`), its sprite and glyphs at the resources stored with it (relative, as
    /// ArcGIS's own styles are), whatever host they named before.
    public static func servedStyle(_ style: JSONValue, hasSprites: Bool, hasFonts: Bool) -> JSONValue {
        guard case .object(var object) = style else { return style }
        if case .object(var sources) = object["sources"] ?? .null {
            for (name, source) in sources {
                guard case .object(var vector) = source, vector["type"] == "vector" else { continue }
                vector["url"] = "../../"
                vector["tiles"] = ["../../tile/{z}/{y}/{x}.pbf"]
                sources[name] = .object(vector)
            }
            object["sources"] = .object(sources)
        }
        object["sprite"] = hasSprites ? "../sprites/sprite" : nil
        object["glyphs"] = hasFonts ? "../fonts/{fontstack}/{range}.pbf" : nil
        return .object(object)
    }
}
