import Foundation

/// The text the home reads from a browser before any REST request: a form's return page, the
/// flash cookie, a typed extent, a chosen layer or basemap, ids and names, the file name a
/// multipart part is given, a cookie in a `Cookie` header. Pure, and apart from the server so
/// the fuzzer (`FuzzHome`) builds without the HTTP stack and reaches the code the pages run.
public enum HomeInputs {
    /// `text` if it is a page of the home a form may return to (`content.html?folder=x`): no
    /// scheme, no host, no `..`, no backslash; its query printable ASCII as a URL carries it
    /// (it goes into a `Location` header: no control character, space or quote).
    public static func returnPage(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.utf8.count <= 1024 else { return nil }
        let page = text.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard page.hasSuffix(".html"), page.utf8.allSatisfy({ isPageByte($0) }), text.utf8.allSatisfy({ isQueryByte($0) }),
            !text.contains("//"), !text.contains("..")
        else { return nil }
        return text
    }

    /// What a URL's query carries: letters, digits and `-._~%=&+,;:@/?!*'()$`.
    private static func isQueryByte(_ byte: UInt8) -> Bool {
        isPageByte(byte) || Array("_~%=&+,;:@/?!*'()$".utf8).contains(byte)
    }

    private static func isPageByte(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// A flash cookie's kind (`done`, `failed`) and text, or nil.
    public static func flash(_ cookieValue: String) -> (kind: String, text: String)? {
        HomeFlash(cookieValue: cookieValue).map { ($0.kind.rawValue, $0.text) }
    }

    /// The cookie value a flash message is carried in.
    public static func flashCookie(done: Bool, text: String) -> String { HomeFlash(kind: done ? .done : .failed, text: text).cookieValue }

    /// A map area's extent typed as `west, south, east, north`.
    public static func extent(_ text: String) -> [Double]? {
        let values = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == 4, values.allSatisfy(\.isFinite), values[0] < values[2], values[1] < values[3] else { return nil }
        return values
    }

    /// A web map's chosen layer (`layer` true) or basemap, `path|title`: the path and title.
    public static func choice(_ value: String, layer: Bool) -> (path: String, title: String)? {
        let parts = value.split(separator: "|", maxSplits: 1).map(String.init)
        // A URL of this server's or a path: either way `serverPath` checks its segments.
        guard parts.count == 2, let path = serverPath(parts[0]) else { return nil }
        let tail = path.split(separator: "/").suffix(2)
        if layer {
            guard tail.first == "FeatureServer", tail.last.flatMap({ Int($0) }) != nil else { return nil }
        } else {
            guard let kind = tail.last, kind == "MapServer" || kind == "VectorTileServer" else { return nil }
        }
        return (path, String(parts[1].prefix(250)))
    }

    /// A path of this server's services from one of its URLs (or a path), with no empty,
    /// `.` or `..` segment.
    public static func serverPath(_ url: String?) -> String? {
        guard let url, let components = URLComponents(string: url), components.path.hasPrefix("/arcgis/rest/services/"),
            !components.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains(where: {
                $0.isEmpty || $0 == "." || $0 == ".."
            })
        else { return nil }
        return components.path
    }

    /// A service's name as a page may carry it: `name` or `folder/name`, each letters, digits, `_` and `-`.
    public static func isServiceName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && name.utf8.count <= 200
            && parts.allSatisfy {
                !$0.isEmpty
                    && $0.utf8.allSatisfy { $0 == 95 || $0 == 45 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
            }
    }

    /// An item or job id as the pages pass them: 1 to 64 ASCII letters and digits.
    public static func isPlainId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
    }

    /// A file or field name as a multipart part header carries it (no quote, backslash or line break).
    public static func quoted(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" && $0 != "\\" }.map(Character.init))
    }

    /// The value of cookie `name` in a request's `Cookie` headers: the first non-empty one of at most 4 KiB.
    public static func cookie(_ name: String, headers: some Sequence<String>) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == name, !parts[1].isEmpty, parts[1].utf8.count <= 4096 { return parts[1] }
            }
        }
        return nil
    }
}
