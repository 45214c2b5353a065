import CSpatiaLite
import GRDB
import OutpostStorage

private let spatialiteProcessInit: Void = { spatialite_initialize() }()

/// Attaches SpatiaLite to GRDB connections (linked mode).
///
/// GRDB has no close hook, so the per-connection SpatiaLite cache is owned by a dummy SQL
/// function whose destructor SQLite calls when the connection closes; without it every
/// pooled reader leaks its cache.
enum SpatiaLite {
    static func attach(to handle: OpaquePointer) throws {
        _ = spatialiteProcessInit
        guard let cache = spatialite_alloc_connection() else {
            throw StoreError.spatialite("spatialite_alloc_connection failed")
        }
        spatialite_init_ex(handle, cache, 0)
        let rc = sqlite3_create_function_v2(
            handle, "_outpost_spatialite_cache", 0, SQLITE_UTF8, cache,
            { context, _, _ in sqlite3_result_null(context) }, nil, nil,
            { cache in spatialite_cleanup_ex(cache) })
        guard rc == SQLITE_OK else { throw StoreError.spatialite("registering the cache owner failed (\(rc))") }
    }

    static var versions: String {
        "SpatiaLite \(String(cString: spatialite_version())), SQLite \(String(cString: sqlite3_libversion()))"
    }
}
