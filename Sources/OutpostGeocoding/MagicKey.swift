import Foundation

/// `suggest`'s `magicKey`: which entry a suggestion was, carried through the client and back
/// to `findAddressCandidates` (docs/geocoding.md, "Suggest"). Opaque to the client: base64url
/// (no padding) of `og1|<kind code>|<feature id>`. Whatever comes back is untrusted: anything
/// that is not exactly such a key (too long, another alphabet, another version, an unknown
/// kind, an empty or overlong id) reads as nil, never as an error or a crash.
public struct MagicKey: Hashable, Sendable, Codable {
    public var entryId: String
    public var kind: LocatorEntry.Kind

    /// The longest feature id a key carries, and so the longest key read.
    public static let maximumIdLength = 256
    static let maximumEncodedLength = 4 * (maximumIdLength + 16) / 3 + 4
    static let version = "og1"

    public init(entryId: String, kind: LocatorEntry.Kind) {
        self.entryId = entryId
        self.kind = kind
    }

    /// Every entry `LocatorEntry.make` accepts has an id of at most `maximumIdLength` bytes,
    /// so its key reads back.
    public var encoded: String {
        Data("\(Self.version)|\(Self.code(of: kind))|\(entryId)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public init?(encoded: String) {
        guard !encoded.isEmpty, encoded.utf8.count <= Self.maximumEncodedLength,
            encoded.utf8.allSatisfy({ byte in Self.alphabet.contains(byte) })
        else { return nil }
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.version, let kind = Self.kinds[String(parts[1])] else { return nil }
        let id = String(parts[2])
        guard !id.isEmpty, id.utf8.count <= Self.maximumIdLength else { return nil }
        self.init(entryId: id, kind: kind)
    }

    /// Each kind's code, by an exhaustive switch: a new kind cannot go without one.
    private static func code(of kind: LocatorEntry.Kind) -> String {
        switch kind {
        case .pointAddress: "pa"
        case .streetCenterline: "sc"
        case .place: "pl"
        case .locality: "lo"
        case .postal: "po"
        }
    }

    private static let kinds = Dictionary(uniqueKeysWithValues: LocatorEntry.Kind.allCases.map { (code(of: $0), $0) })
    private static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
