import FuzzCommon
import OutpostWire

// ZIP archives handed in to be published (a zipped Shapefile or File Geodatabase):
// ZipDirectory(bytes:), with small limits so the fuzzer reaches them. Oracles: an accepted
// archive keeps within every limit, and every name stays inside the archive (relative, no
// empty, `.` or `..` segment, no backslash or NUL).

private func isInside(_ name: String) -> Bool {
    var parts = name.split(separator: "/", omittingEmptySubsequences: false)
    if parts.last == "" { parts.removeLast() }
    return !name.hasPrefix("/") && !parts.isEmpty && parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
        && !name.contains("\\") && !name.utf8.contains(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    var limits = ZipDirectory.Limits()
    limits.maxEntries = 64
    limits.maxNameBytes = 128
    limits.maxUncompressedBytes = 1 << 20
    guard let zip = try? ZipDirectory(bytes: input.bytes, limits: limits) else { return 0 }
    fuzzCheck(zip.entries.count <= limits.maxEntries, "\(zip.entries.count) entries accepted")
    fuzzCheck(zip.entries.reduce(0) { $0 + $1.uncompressedSize } <= limits.maxUncompressedBytes, "more than the size limit accepted")
    for entry in zip.entries {
        fuzzCheck(isInside(entry.name), "a name leaves the archive: \(entry.name)")
        fuzzCheck(entry.method == 0 || entry.method == 8, "method \(entry.method) accepted")
        fuzzCheck(entry.name.utf8.count <= limits.maxNameBytes || entry.name.contains("\u{FFFD}"), "a long name accepted")
    }
    return 0
}

@main
enum FuzzZipDirectoryMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
