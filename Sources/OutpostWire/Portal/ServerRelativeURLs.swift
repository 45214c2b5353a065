/// Web map JSON kept with server-relative layer URLs (`/arcgis/rest/services/…`, as the demo
/// map is seeded without knowing the host it will be served from) is answered with absolute
/// URLs for the host that asks. Absolute URLs pass unchanged: data is served as given.
public enum ServerRelativeURLs {
    /// Keys whose string values are URLs in web map JSON.
    static let urlKeys: Set = ["url", "styleUrl", "itemUrl"]

    /// `json` with every server-relative URL (a value of a URL key starting with `/arcgis/`)
    /// prefixed by `server` (`https://host:port`).
    public static func absolute(_ json: JSONValue, server: String) -> JSONValue {
        switch json {
        case .array(let values): return .array(values.map { absolute($0, server: server) })
        case .object(let object):
            return .object(
                JSONObject(
                    object.map { member in
                        if urlKeys.contains(member.key), case .string(let text) = member.value, text.hasPrefix("/arcgis/") {
                            return (key: member.key, value: .string(server + text))
                        }
                        return (key: member.key, value: absolute(member.value, server: server))
                    }))
        default: return json
        }
    }
}
