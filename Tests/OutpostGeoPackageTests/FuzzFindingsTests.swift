import Foundation
import OutpostGeoPackage
import Testing

/// What the fuzz targets found (FuzzTesting/, docs/reliability.md "Fuzzing"): each reproducer
/// in the corpus, replayed here as a test that crashed the process before its fix.
@Suite struct FuzzFindingsTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzTesting/Corpus/FuzzGeoPackage").path

    /// A change log row with a NULL layer, a NULL format version and a renamed column: GRDB's
    /// subscripts stopped the process on each; they are now clear refusals.
    @Test(arguments: ["regression-null-change-layer-id.gpkg", "regression-null-format-version.gpkg", "regression-missing-layer-column.gpkg"])
    func aMalformedUploadIsRefusedNotACrash(_ name: String) {
        let path = (Self.corpus as NSString).appendingPathComponent(name)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(throws: ReplicaChanges.Failure.self) { try ReplicaChanges.read(path) }
        // The checks before a file is adopted read its description, not its change log.
        if !name.contains("change") { #expect(throws: ReplicaChanges.Failure.self) { try ReplicaFile.checkUntrusted(path) } }
    }
}
