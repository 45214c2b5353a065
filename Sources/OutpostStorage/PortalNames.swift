import OutpostWire

/// Names and ids of the portal's things.
public enum PortalNames {
    /// The server's own name: it owns the services' portal items (`ServiceItems.owner`), so no
    /// user may take it (an API key naming no item reaches its owner's own items).
    public static let serverOwner = "outpost"

    /// A new item or folder id: 32 lowercase hexadecimal digits, as ArcGIS portals make them.
    public static func newId() -> String {
        var generator = IdentifierSeed.Generator()
        return (0..<4).map { _ in
            let value = generator.next() as UInt32
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    /// Whether `id` looks like an item id (so it can name a folder on disk).
    public static func isValidId(_ id: String) -> Bool {
        id.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// A resource name: path segments of letters, digits, `.`, `_`, `-`, none empty or a dot
    /// segment, at most 256 characters (so it can name a file below the item and no further).
    public static func isValidResourceName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 256 else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { segment in
            !segment.isEmpty && segment != "." && segment != ".."
                && segment.utf8.allSatisfy {
                    $0 < 128 && (Character(UnicodeScalar($0)).isLetter || Character(UnicodeScalar($0)).isNumber || $0 == 46 || $0 == 95 || $0 == 45)
                }
        }
    }
}
