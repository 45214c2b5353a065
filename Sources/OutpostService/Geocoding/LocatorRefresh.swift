import OutpostGeocoding
import OutpostStorage
import OutpostWire

/// Keeps a locator in step with its layer (docs/geocoding.md, "Refresh"): the features added,
/// updated and deleted since the generation it follows, read from the change tracking, become
/// its entries' upserts and deletions in one transaction. A locator without a generation, a
/// deletion without its object id, or more changes than `LayerChangesSince.maximumChanges`
/// is built anew instead.
public enum LocatorRefresh {
    public enum Outcome: Equatable, Sendable {
        /// Nothing changed since the generation it follows.
        case current
        case updated(upserted: Int, deleted: Int)
        case rebuilt
        /// A build or another refresh changed the locator meanwhile: nothing written; the
        /// next refresh follows from what that left.
        case superseded
    }

    @discardableResult
    public static func refresh(named name: String, in store: some OutpostBackend) throws -> Outcome {
        guard let locator = try store.locators.locator(named: name) else { throw StoreError.serviceNotFound(name) }
        let definition = locator.definition
        guard let since = locator.generation else { return try rebuild(definition, in: store) }
        let read: LayerChangesSince?
        do {
            read = try LayerChangesSince.read(service: definition.service, layer: definition.layer, since: since, in: store)
        } catch let error as StoreError {
            // The layer is gone: if a layer comes back under its name, its generations are
            // not this one's, so the locator is built anew then.
            if LayerChangesSince.isGone(error) { try forgetGeneration(locator, in: store) }
            throw error
        }
        guard let changes = read, changes.deleted.allSatisfy({ $0.objectId != nil }) else { return try rebuild(definition, in: store) }
        // The generation counts every change of the store (PostgreSQL: every transaction's
        // tick), so only the layer's own changes say whether the locator is current.
        guard !changes.changed.isEmpty || !changes.deleted.isEmpty else { return .current }
        let layer = try store.schema.layer(service: definition.service, id: definition.layer)
        var entries: [LocatorEntry] = []
        var gone = changes.deleted.compactMap { $0.objectId.map(String.init) }
        for feature in changes.changed {
            switch LocatorBuilder.entry(of: feature, definition, layer: layer.definition) {
            case .success(let entry): entries.append(entry)
            // A feature that no longer makes an entry loses the one it made.
            case .failure: if let id = feature.value(layer.definition.objectIdField).flatMap(LocatorBuilder.text) { gone.append(id) }
            }
        }
        var updated = locator
        updated.generation = changes.generation
        updated.builtAt = store.clock.milliseconds()
        let known = KnownLocalities(tokens: locator.knownLocalities).names.union(KnownLocalities(entries: entries).names)
        updated.knownLocalities = known.sorted { $0.lexicographicallyPrecedes($1) }
        guard try store.locators.updateLocator(updated, upserting: entries, deleting: gone, replacing: locator) != nil else { return .superseded }
        return .updated(upserted: entries.count, deleted: gone.count)
    }

    /// Marks the locator to be built anew at its next refresh (its layer went, or the change
    /// tracking it follows was compacted), keeping its entries until then.
    public static func forgetGeneration(_ locator: StoredLocator, in store: some OutpostBackend) throws {
        var forgotten = locator
        forgotten.generation = nil
        _ = try store.locators.updateLocator(forgotten, upserting: [], deleting: [], replacing: locator)
    }

    static func rebuild(_ definition: LocatorDefinition, in store: some OutpostBackend) throws -> Outcome {
        try LocatorBuilder.build(definition, in: store)
        return .rebuilt
    }
}
