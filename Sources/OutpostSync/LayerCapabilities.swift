import Foundation

/// A feature service's `capabilities` (`"Query,Create,Update,Delete,Sync"`), as the offline
/// rules read them. One definition for the client's offline maps and the server's map-area
/// packages.
public struct LayerCapabilities: Sendable, Equatable {
    public var names: Set<String>

    public init(_ names: some Sequence<String>) {
        self.names = Set(names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// From the comma-separated text a service's JSON gives.
    public init(text: String) { self.init(text.split(separator: ",").map(String.init)) }

    /// A layer counts as editable offline only when adds, updates and deletes are all allowed
    /// (`Editing` allows them all), as the ArcGIS Maps SDKs count it (offline-maps.md §4.1): an
    /// add-only layer is taken as a read-only one.
    public var isEditableOffline: Bool {
        names.contains("Editing") || names.isSuperset(of: ["Create", "Update", "Delete"])
    }
}
