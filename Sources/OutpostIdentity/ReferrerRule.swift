/// Which pages may carry an API key (its app's `httpReferrers`, docs/identity.md, "API keys:
/// what a key reaches"). With no entry, any page (or none) may. Otherwise the request's
/// `Referer` (or, lacking one, its `Origin`) must match an entry: an entry is a URL prefix
/// (`https://foo.com/app/`), `*` standing for any run of characters
/// (`https://*.foo.com/*`); the scheme and the host are compared without case, the rest
/// with it. An entry's host is matched whole: `https://foo.com` is not a prefix of
/// `https://foo.com.evil.example/`.
public struct ReferrerRule: Sendable, Equatable {
    public var entries: [String]
    /// The most `*` an entry may hold (`AppRegistration.isReferrer`).
    public static let maximumStars = 4
    /// The longest page address compared: a longer `Referer` matches nothing (browsers send
    /// at most 4,096 bytes), so one request costs at most entries × this × an entry's length.
    public static let maximumPageBytes = 4096

    public init(_ entries: [String]) {
        self.entries = entries
    }

    /// Whether a request with these headers may use the key (empty headers count as absent).
    public func allows(referer: String?, origin: String?) -> Bool {
        guard !entries.isEmpty else { return true }
        let page: String
        if let referer = referer?.trimmingWhitespace, !referer.isEmpty {
            page = String(referer)
        } else if let origin = origin?.trimmingWhitespace, !origin.isEmpty {
            // An origin is the page's root (`https://good.example` is `https://good.example/`),
            // so an entry `https://good.example/*` takes it; a deeper entry cannot be told apart.
            page = origin + (origin.hasSuffix("/") ? "" : "/")
        } else {
            return false
        }
        guard page.utf8.count <= Self.maximumPageBytes else { return false }
        return entries.contains { Self.matches(entry: $0, page: page) }
    }

    /// Whether `page` (a URL) matches `entry`.
    public static func matches(entry: String, page: String) -> Bool {
        guard let pattern = URLParts(entry), let url = URLParts(page) else {
            // An entry that is no URL (`*`) is a prefix of the whole text, without case.
            return Glob.matches(Array(entry.lowercased().utf8) + [Glob.star], Array(page.lowercased().utf8))
        }
        return Glob.matches(Array(pattern.scheme.lowercased().utf8), Array(url.scheme.lowercased().utf8))
            && Glob.matches(Array(pattern.authority.lowercased().utf8), Array(url.authority.lowercased().utf8))
            && Glob.matches(Array(pattern.rest.utf8) + [Glob.star], Array(url.rest.utf8))
    }
}

/// A URL split as the rule compares it: scheme, authority (host and port), and the rest
/// (path, query, fragment).
private struct URLParts {
    var scheme: Substring
    var authority: Substring
    var rest: Substring

    init?(_ text: String) {
        guard let separator = text.range(of: "://") else { return nil }
        scheme = text[..<separator.lowerBound]
        guard !scheme.isEmpty, !scheme.contains("/") else { return nil }
        let after = text[separator.upperBound...]
        let end = after.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? after.endIndex
        authority = after[..<end]
        rest = after[end...]
    }
}

/// `*` as any run of bytes, everything else literal; the whole of `text` must match.
private enum Glob {
    static let star = UInt8(ascii: "*")

    /// Iterative, with one backtracking point: linear in practice, never exponential.
    static func matches(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        var (p, t) = (0, 0)
        var resume: (pattern: Int, text: Int)?
        while t < text.count {
            if p < pattern.count, pattern[p] == star {
                resume = (p, t)
                p += 1
            } else if p < pattern.count, pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let last = resume {
                p = last.pattern + 1
                t = last.text + 1
                resume = (last.pattern, last.text + 1)
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == star { p += 1 }
        return p == pattern.count
    }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return text
    }
}
