// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Outpost",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "outpost", targets: ["outpost"]),
        .library(name: "OutpostWire", targets: ["OutpostWire"]),
        .library(name: "OutpostWhereSQL", targets: ["OutpostWhereSQL"]),
        .library(name: "OutpostGeometry", targets: ["OutpostGeometry"]),
        .library(name: "OutpostSync", targets: ["OutpostSync"]),
        .library(name: "OutpostGeoPackage", targets: ["OutpostGeoPackage"]),
        .library(name: "OutpostStorage", targets: ["OutpostStorage"]),
        .library(name: "OutpostGeocoding", targets: ["OutpostGeocoding"]),
        .library(name: "OutpostRouting", targets: ["OutpostRouting"]),
        .library(name: "OutpostSpatiaLite", targets: ["OutpostSpatiaLite"]),
        .library(name: "OutpostTilePackage", targets: ["OutpostTilePackage"]),
        .library(name: "OutpostService", targets: ["OutpostService"]),
        .library(name: "OutpostIdentity", targets: ["OutpostIdentity"]),
        .library(name: "OutpostServer", targets: ["OutpostServer"]),
        .library(name: "OutpostHomeInputs", targets: ["OutpostHomeInputs"]),
        .library(name: "OutpostClient", targets: ["OutpostClient"]),
        .library(name: "OutpostConformance", targets: ["OutpostConformance"]),
        .library(name: "OutpostPostgres", targets: ["OutpostPostgres"]),
        .library(name: "OutpostObjectStorage", targets: ["OutpostObjectStorage"]),
        .library(name: "OutpostTesting", targets: ["OutpostTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Child processes (GDAL's ogr2ogr, test tools): Foundation's `Process` on Linux copies a
        // whole `dirent` name per open descriptor and crashed a test run holding ~1,400 of them.
        .package(url: "https://github.com/swiftlang/swift-subprocess", exact: "1.0.2"),
    ],
    targets: [
        // Pure wire model: lenient JSON, Esri enums, fields, errors, the where-clause parser and
        // its checks against a layer's fields. No I/O, no SQL.
        .target(name: "OutpostWire"),
        // A locator's matching model (docs/geocoding.md): normalisation, parsing, scoring,
        // interpolation, ranking, suggestions, reverse geocoding. Pure values and functions.
        .target(name: "OutpostGeocoding"),
        // A route network's model (docs/routing.md): the network built from lines, locating
        // points on it, shortest paths under travel rules, stop sequencing, directions. Pure.
        .target(name: "OutpostRouting", dependencies: ["OutpostGeocoding"]),
        // `where` clauses as SQL, below the storage seam: the compiler core and the dialect
        // protocol, with SQLite's dialect (the SpatiaLite backend, the client); PostgreSQL's is
        // in OutpostPostgres.
        .target(name: "OutpostWhereSQL", dependencies: ["OutpostWire"]),
        // Geometry codec: Esri JSON <-> WKB <-> GeoPackage binary. Pure.
        .target(name: "OutpostGeometry", dependencies: ["OutpostWire"]),
        // Pure sync rules: replica definitions, request planning, job lifecycle. No I/O.
        .target(name: "OutpostSync", dependencies: ["OutpostWire", "OutpostGeometry"]),
        // The storage seams: the protocols a backend implements (users, uploads, jobs, the
        // replica registry, the conflict log, result files, maintenance) and their values. No SQL.
        .target(
            name: "OutpostStorage",
            dependencies: [
                "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostGeocoding", "CProj",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        // PROJ's C API (Debian's libproj-dev): what a spatial reference is, from PROJ's database.
        .systemLibrary(name: "CProj", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        // Bulk SQLite helpers shared by the store and the GeoPackage writer (plain SQLite C API).
        .target(
            name: "OutpostSQLite",
            dependencies: [
                "OutpostWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // sqlite3_db_config() wrappers (variadic in C) for opening untrusted files defensively.
        .systemLibrary(name: "CSQLiteDefensive"),
        // The replica file: GeoPackage 1.4 + the outpost_sync extension, plain SQLite (no SpatiaLite).
        .target(
            name: "OutpostGeoPackage",
            dependencies: [
                "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostSQLite", "CSQLiteDefensive", "OutpostGeocoding",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The client library: GeodatabaseSyncTask, Geodatabase, jobs, RouteTask. Plain SQLite, no SpatiaLite.
        .target(
            name: "OutpostClient",
            dependencies: [
                "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostGeoPackage", "OutpostSQLite", "OutpostWhereSQL", "OutpostRouting",
                "OutpostGeocoding",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // `outpost conformance`: the sync scenario catalogue, against any FeatureServer.
        .target(name: "OutpostConformance", dependencies: ["OutpostClient", "OutpostWire"]),
        // libspatialite from Debian's libspatialite-dev (SQLite + PROJ + GEOS).
        .systemLibrary(
            name: "CSpatiaLite",
            pkgConfig: "spatialite",
            providers: [.apt(["libspatialite-dev"])]
        ),
        // zlib's CRC-32 (Debian's zlib1g-dev) for the tile package's zip.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Tile packages an export writes: .tpkx (Compact Cache V2 bundles in a stored zip)
        // and MBTiles, streamed from a tile source.
        .target(
            name: "OutpostTilePackage",
            dependencies: [
                "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostSQLite", "CZlib", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The SpatiaLite feature store: catalog, layer tables, migrations, queries.
        .target(
            name: "OutpostSpatiaLite",
            dependencies: [
                "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostStorage", "OutpostSQLite", "OutpostGeoPackage", "OutpostTileFiles",
                "OutpostWhereSQL", "OutpostGeocoding", "CSpatiaLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The data tools of the CLI, over any backend: import (GeoJSON, GeoPackage, anything GDAL
        // reads), the demo seed, export through GDAL, the portal's publish job. SpatiaLite only
        // for the demo's seed path.
        .target(
            name: "OutpostDataTools",
            dependencies: [
                "OutpostStorage", "OutpostSpatiaLite", "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostGeoPackage",
                // Publishing runs as a job (`PublishWork`).
                "OutpostService",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        // The portal's OAuth 2.0 rules (docs/identity.md): clients and their redirects, the
        // authorization and token requests, PKCE, the sealed sign-in state. Pure: no I/O.
        .target(
            name: "OutpostIdentity",
            dependencies: [
                "OutpostWire", "OutpostStorage", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The use cases the HTTP server and the CLI share (replica administration, a sync),
        // generic over any backend.
        .target(
            name: "OutpostService",
            dependencies: [
                "OutpostStorage", "OutpostSync", "OutpostWire", "OutpostGeometry", "OutpostTilePackage", "OutpostGeocoding", "OutpostRouting",
                // The sync engine writes the GeoPackage delta of an answer.
                "OutpostGeoPackage",
                // The job runner logs its jobs' failures; a sync's retry fingerprint is a digest.
                .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // What the home reads from a browser, pure (fuzzed without the HTTP stack: FuzzHome).
        .target(name: "OutpostHomeInputs"),
        // The HTTP layer (Hummingbird): ArcGIS REST routes over the store.
        .target(
            name: "OutpostServer",
            dependencies: [
                "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostGeoPackage", "OutpostStorage", "OutpostService", "OutpostIdentity",
                // The portal's `publish` imports as the CLI does.
                "OutpostDataTools",
                "OutpostHomeInputs",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "outpost",
            dependencies: [
                "OutpostServer", "OutpostStorage", "OutpostSpatiaLite", "OutpostService", "OutpostSync", "OutpostWire", "OutpostClient",
                "OutpostConformance", "OutpostTilePackage", "OutpostPostgres", "OutpostMigration", "OutpostObjectStorage", "OutpostDataTools",
                "OutpostGeocoding", "OutpostRouting", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The PostgreSQL + PostGIS backend (docs/postgres.md): connections, forward-only
        // migrations, generations as snapshot ticks.
        // Tile sets' MBTiles files and style resources in a folder, whichever database lists them.
        .target(
            name: "OutpostTileFiles",
            dependencies: ["OutpostWire", "OutpostStorage", "OutpostSQLite", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "OutpostPostgres",
            dependencies: [
                "CLibPQ", "OutpostSync", "OutpostWire", "OutpostStorage", "OutpostGeometry", "OutpostGeoPackage", "OutpostTileFiles",
                "OutpostWhereSQL", "OutpostGeocoding",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // libpq (Debian's libpq-dev), PostgreSQL's own client: blocking calls, run off the
        // event loops as SQLite's are.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Blob stores: a local folder (the default) and S3-compatible object storage (SigV4).
        .target(
            name: "OutpostObjectStorage",
            dependencies: ["OutpostStorage", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Moving a SpatiaLite data folder into PostgreSQL (`outpost migrate-to-postgres`).
        .target(
            name: "OutpostMigration",
            dependencies: [
                "OutpostSpatiaLite", "OutpostPostgres", "OutpostStorage", "OutpostSync", "OutpostWire", "OutpostGeometry",
                // Locators and networks are built anew over the moved layers.
                "OutpostService",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Store-level benchmark of SpatiaLite beside PostgreSQL (bench/postgres.py).
        .executableTarget(
            name: "outpost-store-bench",
            dependencies: [
                "OutpostSpatiaLite", "OutpostPostgres", "OutpostService", "OutpostStorage", "OutpostSync", "OutpostWire", "OutpostGeometry",
            ]
        ),
        // Client-side benchmark driver for bench/client.py.
        .executableTarget(
            name: "outpost-bench",
            dependencies: ["OutpostClient", "OutpostGeometry", "OutpostWire"]
        ),
        // An in-process test target for an app's Swift tests (docs/testing-your-app.md).
        .target(
            name: "OutpostTesting",
            dependencies: [
                "OutpostServer", "OutpostClient", "OutpostStorage", "OutpostSpatiaLite", "OutpostPostgres", "OutpostDataTools", "OutpostSync",
                "OutpostWire", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "OutpostTestingTests",
            dependencies: [
                "OutpostTesting", "OutpostClient", "OutpostWire", "OutpostGeoPackage", "OutpostTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // Fixtures the test targets share (test data, temporary folders removed at exit, stores).
        .target(
            name: "OutpostTestSupport",
            dependencies: [
                "OutpostSpatiaLite", "OutpostPostgres", "OutpostService", "OutpostStorage", "OutpostSync", "OutpostWire", "OutpostDataTools",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/OutpostTestSupport"),
        .testTarget(name: "OutpostWireTests", dependencies: ["OutpostWire"]),
        .testTarget(name: "OutpostGeocodingTests", dependencies: ["OutpostGeocoding"]),
        .testTarget(name: "OutpostRoutingTests", dependencies: ["OutpostRouting", "OutpostGeocoding"]),
        .testTarget(
            name: "OutpostIdentityTests",
            dependencies: [
                "OutpostIdentity", "OutpostStorage", "OutpostWire", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        // The where compiler in both dialects (PostgreSQL's spelling is OutpostPostgres's; no database is needed).
        .testTarget(name: "OutpostWhereSQLTests", dependencies: ["OutpostWhereSQL", "OutpostWire"]),
        .testTarget(name: "OutpostGeometryTests", dependencies: ["OutpostGeometry", "OutpostWire"]),
        .testTarget(name: "OutpostSyncTests", dependencies: ["OutpostSync", "OutpostWire", "OutpostGeometry"]),
        .testTarget(
            name: "OutpostTilePackageTests",
            dependencies: [
                "OutpostTilePackage", "OutpostSync", "OutpostWire", "OutpostGeometry", "OutpostTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "OutpostGeoPackageTests",
            dependencies: [
                "OutpostGeoPackage", "OutpostSync", "OutpostWire", "OutpostGeometry", "OutpostTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "OutpostSpatiaLiteTests",
            dependencies: [
                "OutpostSpatiaLite", "OutpostStorage", "OutpostService", "OutpostTestSupport", "OutpostWire", "OutpostGeometry", "OutpostSync",
                "OutpostGeoPackage", "OutpostSQLite", "OutpostPostgres", "OutpostDataTools",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The store contract suite: every storage seam's contract, run against every backend.
        .testTarget(
            name: "OutpostContractTests",
            dependencies: [
                "OutpostStorage", "OutpostService", "OutpostSpatiaLite", "OutpostPostgres", "OutpostDataTools", "OutpostTestSupport", "OutpostWire",
                "OutpostGeometry", "OutpostSync", "OutpostGeoPackage", "OutpostSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "OutpostPostgresTests",
            dependencies: [
                "OutpostPostgres", "OutpostMigration", "OutpostSync", "OutpostStorage", "OutpostSpatiaLite", "OutpostService", "OutpostWire",
                "OutpostGeometry", "OutpostTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "OutpostObjectStorageTests", dependencies: ["OutpostObjectStorage", "OutpostStorage", "OutpostTestSupport"]),
        .testTarget(
            name: "OutpostClientTests",
            dependencies: [
                "OutpostClient", "OutpostConformance", "OutpostServer", "OutpostStorage", "OutpostSpatiaLite", "OutpostTestSupport", "OutpostWire",
                "OutpostGeometry", "OutpostGeoPackage", "OutpostDataTools", "OutpostRouting", "OutpostGeocoding",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "OutpostServerTests",
            dependencies: [
                "OutpostServer", "OutpostStorage", "OutpostSpatiaLite", "OutpostTestSupport", "OutpostWire", "OutpostSync", "OutpostGeoPackage",
                "OutpostGeometry", "OutpostService", "OutpostClient", "OutpostDataTools", "OutpostIdentity",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
