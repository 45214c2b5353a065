import Foundation

/// A one-time message an action leaves for the page it sends the browser to.
public struct HomeFlash: Sendable, Equatable {
    public enum Kind: String, Sendable { case done, failed }
    public var kind: Kind
    public var text: String

    /// As the cookie carries it: the kind, then the text (its first 500 characters) in base64url.
    public var cookieValue: String {
        kind.rawValue + "."
            + Data(text.prefix(500).utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }

    public init?(cookieValue: String) {
        let parts = cookieValue.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = Kind(rawValue: parts[0]) else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        self.init(kind: kind, text: text)
    }
}
