import FuzzCommon
import OutpostGeoPackage
import OutpostWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// An uploaded GeoPackage (an upload delta or a replica file, `synchronizeReplica` with
// `editsUploadFormat=sqlite`; a downloaded replica a client adopts): the input's bytes as a
// file, read by ReplicaChanges.read with the server's kind of limits and checked by
// ReplicaFile.checkUntrusted; as a published GeoPackage (UntrustedGeoPackage.check) and a
// published MBTiles file (UntrustedMBTiles.rebuild). Oracles: no crash, no more changes than
// the limit, no more attachment bytes than the file holds (with the reader's 64 KiB of
// slack), and no more tiles than the file has bytes.

private let path = scratchPath("upload.gpkg")
private let rebuilt = scratchPath("rebuilt.mbtiles")
private let limits = UntrustedFileLimits(maximumFileBytes: 1 << 20, maximumValueBytes: 1 << 20, maximumChanges: 10_000)

private func write(_ bytes: [UInt8]) {
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { fatalError("cannot create \(path)") }
    defer { close(descriptor) }
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
        guard count > 0 else { fatalError("cannot write \(path)") }
        written += count
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    write(input.bytes)
    defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
    let verbose = getenv("OUTPOST_FUZZ_VERBOSE") != nil
    let read = Result { () throws(ReplicaChanges.Failure) in try ReplicaChanges.read(path, limits: limits) }
    if verbose { print("read: \(read)") }
    if case .success(let changes) = read {
        fuzzCheck(changes.changeCount <= limits.maximumChanges, "\(changes.changeCount) changes read")
        var attachmentBytes = 0
        for layer in changes.layers {
            for edit in (layer.edits.attachments?.adds ?? []) + (layer.edits.attachments?.updates ?? []) {
                if case .data(let data)? = edit.source { attachmentBytes += data.count }
            }
        }
        fuzzCheck(attachmentBytes <= input.bytes.count + 65_536, "\(attachmentBytes) attachment bytes from a \(input.bytes.count)-byte file")
    }
    let checked = Result { () throws(ReplicaChanges.Failure) in try ReplicaFile.checkUntrusted(path) }
    if verbose { print("checkUntrusted: \(checked)") }
    let published = Result { () throws(ReplicaChanges.Failure) in try UntrustedGeoPackage.check(path) }
    if verbose { print("UntrustedGeoPackage.check: \(published)") }
    // The same bytes as an uploaded MBTiles file: every tile copied holds at least a byte.
    unlink(rebuilt)
    defer { unlink(rebuilt) }
    let tiles = Result { () throws(ReplicaChanges.Failure) in try UntrustedMBTiles.rebuild(path, to: rebuilt) }
    if verbose { print("UntrustedMBTiles.rebuild: \(tiles)") }
    if case .success(let count) = tiles { fuzzCheck(count <= input.bytes.count, "\(count) tiles from a \(input.bytes.count)-byte file") }
    return 0
}

@main
enum FuzzGeoPackageMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
