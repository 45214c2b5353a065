import FuzzCommon
import OutpostStorage
import OutpostWire

// Backup manifests (`manifest.json` of a backup folder a restore is pointed at): JSONParser,
// then BackupManifest(json:). verify() is never called (it reads files). Oracles: every
// listed path stays inside the folder (relative, no empty, `.` or `..` part), and a manifest
// read back from its own JSON is the same manifest.

private func isInside(_ path: String) -> Bool {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    return !path.hasPrefix("/") && !parts.isEmpty && parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
        && !path.utf8.contains(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let json = try? JSONParser.parse(bytes: input.bytes), let manifest = try? BackupManifest(json: json) else { return 0 }
    for file in manifest.files { fuzzCheck(isInside(file.path), "a listed path leaves the backup folder: \(file.path)") }
    fuzzCheck(manifest.format <= BackupManifest.currentFormat, "format \(manifest.format) accepted")
    var writer = JSONWriter()
    writer.value(manifest.json)
    guard let again = try? JSONParser.parse(bytes: writer.bytes) else {
        fuzzCheck(false, "a manifest's JSON does not parse: \(writer.string)")
        return 0
    }
    do {
        let reread = try BackupManifest(json: again)
        fuzzCheck(reread == manifest, "a manifest read back differs: \(manifest) vs \(reread)")
    } catch {
        fuzzCheck(false, "a manifest's own JSON is refused (\(error)): \(writer.string)")
    }
    return 0
}

@main
enum FuzzBackupManifestMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
