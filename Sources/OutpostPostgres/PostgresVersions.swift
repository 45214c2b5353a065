import OutpostStorage
import OutpostWire

/// Named versions on PostgreSQL (`VersionStore`). PostgreSQL holds no versioned service yet
/// (`PostgresSchema` refuses to create one, docs/postgres.md "Not yet on PostgreSQL"), so
/// every service here answers as a non-versioned service answers on SpatiaLite: no versions,
/// and each version operation refused with the service named.
public struct PostgresVersions: VersionStore {
    let held: PostgresCatalog

    /// The service, which must exist; PostgreSQL's are never versioned.
    private func nonVersioned(_ service: String) throws -> VersionFailure {
        VersionFailure.notVersioned(try held.load().existingService(named: service).definition.name)
    }

    public func versions(service: String) throws -> [DataVersion] {
        _ = try nonVersioned(service)
        return []
    }

    public func createVersion(service: String, name: String, description: String, access: String) throws -> DataVersion {
        throw try nonVersioned(service)
    }

    public func version(service: String, named name: String) throws -> DataVersion? {
        _ = try nonVersioned(service)
        return nil
    }

    public func deleteVersion(service: String, named name: String) throws {
        _ = try nonVersioned(service)
        throw VersionFailure.notFound(name)
    }

    public func applyVersionEdits(
        service: String, version name: String, edits: [LayerEdits], options: EditOptions, context: EditContext
    ) throws -> EditOutcome {
        throw try nonVersioned(service)
    }

    public func reconcileAndPost(service: String, version name: String) throws -> VersionPost {
        _ = try nonVersioned(service)
        throw VersionFailure.notFound(name)
    }

    public func query(_ query: LayerQuery, service: String, layer layerId: Int, version name: String) throws -> QueryAnswer {
        throw try nonVersioned(service)
    }
}
