import Foundation
import OutpostStorage
import OutpostWire

/// The `privileges` of a registered app's API keys (`registerApp`, `oauth2/apps/<id>/update`),
/// checked for their form as ArcGIS writes them (`premium:user:geocode`,
/// `portal:app:access:item:<id>`). Whether a named item is one the app's owner may see is
/// the route's to decide.
public enum APIKeyPrivileges {
    public static let maximumCount = 64
    public static let maximumBytes = 200
    /// The prefix of a privilege naming one item the key reaches.
    public static let itemPrefix = APIKeyScope.itemPrivilegePrefix

    /// A JSON array of privileges, duplicates dropped, in order; nil when `text` is nil.
    public static func parse(_ text: String?, parameter: String = "privileges") throws(ArcGISError) -> [String]? {
        guard let text else { return nil }
        guard text.utf8.count <= 64 * 1024, let value = try? JSONParser.parse(text), let list = value.arrayValue else {
            throw ArcGISError.invalidParameter(parameter, "a JSON array of privileges")
        }
        guard list.count <= maximumCount else { throw ArcGISError.invalidParameter(parameter, "at most \(maximumCount) privileges") }
        var privileges: [String] = []
        for entry in list {
            guard let privilege = entry.stringValue, isPrivilege(privilege) else {
                throw ArcGISError.invalidParameter(
                    parameter, "'\(entry.stringValue?.prefix(100) ?? "?")' is no privilege: letters, digits and ': _ . -', as premium:user:geocode")
            }
            if !privileges.contains(privilege) { privileges.append(privilege) }
        }
        return privileges
    }

    /// A comma list (`oauth2/validateApiKey`'s `privilege`), each checked; empty when absent.
    public static func parseList(_ text: String?, parameter: String = "privilege") throws(ArcGISError) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        let names = text.split(separator: ",", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
        guard names.count <= maximumCount, names.allSatisfy(isPrivilege) else {
            throw ArcGISError.invalidParameter(parameter, "a comma list of at most \(maximumCount) privileges")
        }
        return names
    }

    /// At most 200 bytes of letters, digits and `: _ . -`, with at least two `:` and no empty
    /// part; an item privilege names an item id.
    public static func isPrivilege(_ text: String) -> Bool {
        guard (1...maximumBytes).contains(text.utf8.count),
            text.utf8.allSatisfy({
                isLetterOrDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
            })
        else { return false }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.allSatisfy({ !$0.isEmpty }) else { return false }
        // An item privilege exactly as the scope reads it: another spelling (`PORTAL:APP:…`, an
        // id in capitals) would be kept, name no item, and widen the key to its owner's items.
        if text.lowercased().hasPrefix(itemPrefix) {
            return text.hasPrefix(itemPrefix) && parts.count == 5 && PortalNames.isValidId(String(parts[4]))
        }
        return true
    }

    /// The ids of the items the privileges name, in order.
    public static func itemIds(_ privileges: [String]) -> [String] {
        privileges.compactMap { $0.hasPrefix(itemPrefix) ? String($0.dropFirst(itemPrefix.count)) : nil }
    }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte)
    }
}
