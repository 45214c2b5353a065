// swift-tools-version:6.0
// Coverage-guided fuzzing (libFuzzer) of the parsers of untrusted input: one executable per
// target, built with the sanitizers on (README.md; scripts/fuzz.sh builds and runs them).
import PackageDescription

/// A fuzz target: `Sources/<name>/<name>.swift` exporting `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String, _ products: [String], extra: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzCommon"] + products.map { .product(name: $0, package: "Outpost") } + extra
    )
}

let package = Package(
    name: "FuzzTesting",
    dependencies: [
        .package(name: "Outpost", path: ".."),
        // The same GRDB as the main package: SQLite's C API for the where target's oracle.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The main package's: FuzzIDToken signs tokens with it.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // libFuzzer's driver, called by each target's `main`.
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzCommon", dependencies: ["CLibFuzzer"]),
        fuzzTarget("FuzzWhere", ["OutpostWire", "OutpostWhereSQL"], extra: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        fuzzTarget("FuzzItemSearch", ["OutpostWire"]),
        fuzzTarget("FuzzGeometry", ["OutpostWire", "OutpostGeometry"]),
        fuzzTarget("FuzzTileAddress", ["OutpostWire"]),
        fuzzTarget("FuzzRefreshSchedule", ["OutpostSync"]),
        fuzzTarget("FuzzForms", ["OutpostWire"]),
        fuzzTarget("FuzzWebMap", ["OutpostWire", "OutpostService"]),
        fuzzTarget("FuzzGeocode", ["OutpostWire", "OutpostService", "OutpostStorage", "OutpostGeocoding"]),
        fuzzTarget("FuzzRoute", ["OutpostWire", "OutpostService", "OutpostStorage", "OutpostGeocoding", "OutpostRouting"]),
        fuzzTarget("FuzzLocatorFile", ["OutpostGeoPackage", "OutpostGeocoding"]),
        fuzzTarget("FuzzBackupManifest", ["OutpostWire", "OutpostStorage"]),
        fuzzTarget("FuzzGeoPackage", ["OutpostGeoPackage"]),
        fuzzTarget("FuzzTileExport", ["OutpostWire", "OutpostSync"]),
        fuzzTarget("FuzzQuantization", ["OutpostWire", "OutpostGeometry"]),
        fuzzTarget("FuzzRequestHead", ["OutpostWire"]),
        fuzzTarget("FuzzOAuth", ["OutpostWire", "OutpostIdentity", "OutpostStorage"]),
        fuzzTarget("FuzzZipDirectory", ["OutpostWire"]),
        fuzzTarget("FuzzCSV", ["OutpostWire"]),
        fuzzTarget("FuzzHome", ["OutpostHomeInputs"]),
        fuzzTarget(
            "FuzzIDToken", ["OutpostWire", "OutpostIdentity", "OutpostStorage"],
            extra: [.product(name: "Crypto", package: "swift-crypto")]),
    ],
    swiftLanguageModes: [.v6]
)
