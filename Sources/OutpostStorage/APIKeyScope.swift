import Foundation
import OutpostWire

/// What a token of an API key reaches (docs/identity.md, "API keys"): the registered app it
/// belongs to and the privileges registered with that app, read with the token on every
/// check, so a change of privileges applies to live keys at once.
///
/// A key acts as its app's owner and never beyond them: it reaches public items, and of the
/// others only those its privileges name (`portal:app:access:item:<id>`) or, when it names
/// none, the owner's own; it edits only with `features:user:edit` (or `fullEdit`); it never
/// changes portal content, registers apps or administers.
public struct APIKeyScope: Sendable, Equatable {
    /// The registered app whose key it is.
    public var clientId: String
    /// The app's item (`Application` or `API Key`).
    public var itemId: String
    /// 0: the app's single `apiKey` (`appType` `apikey`); 1 and 2: the `apiToken` slots.
    public var slot: Int
    /// As registered, in order.
    public var privileges: [String]
    /// Pages whose `Referer` may carry the key (the app's `httpReferrers`); empty: any.
    public var httpReferrers: [String]

    public init(clientId: String, itemId: String, slot: Int, privileges: [String], httpReferrers: [String] = []) {
        self.clientId = clientId
        self.itemId = itemId
        self.slot = slot
        self.privileges = privileges
        self.httpReferrers = httpReferrers
    }

    /// The prefix of a privilege granting one item: `portal:app:access:item:<id>`.
    public static let itemPrivilegePrefix = "portal:app:access:item:"

    /// The items the privileges name.
    public var items: Set<String> {
        Set(privileges.compactMap { $0.hasPrefix(Self.itemPrivilegePrefix) ? String($0.dropFirst(Self.itemPrivilegePrefix.count)) : nil })
    }

    /// Whether the key may edit features (and sync edits up).
    public var mayEdit: Bool { privileges.contains("features:user:edit") || privileges.contains("features:user:fullEdit") }

    /// The most a token of this key carries, whatever its owner's role: an app token
    /// (`client_credentials`) never edits, whatever the app's privileges.
    public var roleCap: UserRole { mayEdit && slot != APIKeySlot.appToken ? .editor : .viewer }

    /// Whether the key reaches the item `itemId` owned by `owner`, a key of `keyOwner`:
    /// beyond the item's sharing, which the caller checks as well (a public item is every
    /// key's). Naming no item, a key reaches its owner's own items, and an app token
    /// (`client_credentials`) what its owner may see (ArcGIS: "all items of app owner can be
    /// accessed if the privileges list is not configured"); it stays a key's caller all the
    /// same: refused where keys are, never managing keys or signing anyone out.
    public func reaches(itemId: String, owner: String, keyOwner: String) -> Bool {
        let named = items
        guard named.isEmpty else { return named.contains(itemId) }
        return slot == APIKeySlot.appToken || owner.caseInsensitiveCompare(keyOwner) == .orderedSame
    }
}

extension APIKeyScope {
    /// The scope of a key token as a backend reads it with its app in one query: the app's
    /// privileges and referrers as stored (JSON arrays of strings, `json(_:)`).
    public init(clientId: String, itemId: String, slot: Int, storedPrivileges: String, storedHTTPReferrers: String) throws {
        self.init(
            clientId: clientId, itemId: itemId, slot: slot, privileges: try Self.list(stored: storedPrivileges),
            httpReferrers: try Self.list(stored: storedHTTPReferrers))
    }

    /// A list of strings as the backends keep it (privileges, referrers, redirect URIs).
    public static func json(_ list: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
    }

    /// A list kept by `json(_:)`, read at every check of a key's token (so with the server's
    /// own parser, not Foundation's decoder). Unreadable text throws rather than reading as
    /// none: a key with no privileges reaches more (its owner's items) than one naming items.
    public static func list(stored text: String) throws -> [String] {
        guard let array = try JSONParser.parse(text).arrayValue else { throw StoredListError(text: text) }
        return try array.map { value in
            guard let string = value.stringValue else { throw StoredListError(text: text) }
            return string
        }
    }

    /// A stored list that is not a JSON array of strings.
    struct StoredListError: Error {
        var text: String
    }

    /// The caller a token of this key (or app token) signs in: its owner, with `role` (the
    /// owner's role now, as capped by the token) lowered to the key's cap, always with the
    /// scope, so every rule for keys holds for app tokens too (second red-team pass: without
    /// it, an app configuring nothing read its owner's keys and signed them out).
    public func user(named name: String, role: UserRole) -> ServerUser {
        ServerUser(name: name, role: min(role, roleCap), apiKey: self)
    }
}
