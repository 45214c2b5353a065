import OutpostStorage

/// The services directory's names (docs/geocoding.md, docs/routing.md): a locator or a network
/// shares the directory with feature and tile services and with each other.
public enum DirectoryNames {
    public enum Kind: Sendable {
        case locator
        case network
    }

    /// Whether `name` is free for a locator or network: no service's, tile set's or other
    /// kind's name, its folder none of theirs, and no service in a folder of its name. A
    /// name of its own kind is free: building again replaces it.
    public static func isFree(_ name: String, for kind: Kind, in store: some OutpostBackend) throws -> Bool {
        var services = try store.catalog().services.map(\.definition.name) + (try store.tiles.tileSets().map(\.name))
        services += kind == .locator ? try store.networks.networks().map(\.name) : try store.locators.locators().map(\.name)
        let taken = Set(services.map { $0.lowercased() })
        let folders = Set(services.compactMap { $0.contains("/") ? $0.split(separator: "/")[0].lowercased() : nil })
        let lowered = name.lowercased()
        let folder = lowered.contains("/") ? String(lowered.split(separator: "/")[0]) : nil
        return !taken.contains(lowered) && !folders.contains(lowered) && !(folder.map(taken.contains) ?? false)
    }
}
