import Foundation
import FuzzCommon
import OutpostGeoPackage
import OutpostGeocoding

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// A locator file handed to a device (`LocatorTask(locatorFile:)`, an offline map's
// `tasks/*.locator`): opened by LocatorFile as untrusted, then asked what LocatorSearch asks.
// Input: first byte < 0xF0: patches of a whole locator file (3 bytes of offset, 1 of length,
// then that many bytes), so the damage lands past SQLite's header checks, in FTS5's
// segments, the entries' JSON, the schema; else the rest is the whole file.
// Oracles: no crash; a file that opens gathers at most the limit asked, and its box search too.

private let path = scratchPath("device.locator")
private let base: [UInt8] = {
    let seed = scratchPath("seed.locator")
    defer { unlink(seed) }
    var entries: [LocatorEntry] = []
    for (index, street) in ["Hill Street", "Station Road", "Rue de l'Église", "12th Avenue"].enumerated() {
        for number in 1...8 {
            let fields = LocatorSourceFields(houseNumber: String(number), street: street, locality: index % 2 == 0 ? "Springfield" : "Shelbyville")
            let location = WebMercator.point(longitude: 13.4 + Double(number) * 0.0004, latitude: 52.52 + Double(index) * 0.001)
            if let entry = try? LocatorEntry.make(id: "\(index)-\(number)", kind: .pointAddress, fields: fields, location: location) {
                entries.append(entry)
            }
        }
    }
    let definition = #"{"entryCount":32,"knownLocalities":[["springfield"],["shelbyville"]],"builtAt":1}"#
    do {
        try LocatorFile.write(to: seed, name: "Fuzz", definition: definition, builtAt: 1) { emit in
            for entry in entries { try emit(try LocatorEntryRow(entry)) }
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: seed)))
    } catch {
        fatalError("cannot write the seed locator file: \(error)")
    }
}()

private func patched(_ input: [UInt8]) -> [UInt8] {
    guard let first = input.first, first < 0xF0 else { return Array(input.dropFirst()) }
    var file = base
    var at = 1
    while at + 4 <= input.count {
        let offset = (Int(input[at]) << 16 | Int(input[at + 1]) << 8 | Int(input[at + 2])) % file.count
        let length = Int(input[at + 3])
        at += 4
        let bytes = input[at..<min(input.count, at + length)]
        at += length
        for (index, byte) in bytes.enumerated() where offset + index < file.count { file[offset + index] = byte }
    }
    return file
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let bytes = patched(input.bytes)
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
    guard let file = try? LocatorFile(path: path) else { return 0 }
    let search = LocatorSearch(index: file)
    for text in ["3 Hill Street, Springfield", "3 Hil Stret", "Station", "12th Av", "Église"] {
        let query = search.parse(singleLine: text, fields: nil)
        if let gathered = try? file.gatherEntries(terms: SearchTerms(query), limit: 7) {
            fuzzCheck(gathered.count <= 7, "\(gathered.count) entries gathered past a limit of 7")
        }
        _ = try? search.findCandidates(query, maxLocations: 5)
        _ = try? search.suggest(text, maxSuggestions: 5)
    }
    let centre = WebMercator.point(longitude: 13.4012, latitude: 52.52)
    if let box = LocatorBox(around: centre, radius: 500), let near = try? file.entries(in: box, limit: 3) {
        fuzzCheck(near.count <= 3, "\(near.count) entries near a point past a limit of 3")
    }
    _ = try? search.reverseGeocode(centre, metres: 200)
    return 0
}

@main
enum FuzzLocatorFileMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
