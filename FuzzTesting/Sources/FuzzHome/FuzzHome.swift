import FuzzCommon
import OutpostHomeInputs

// The home's parsers of browser input (`HomeInputs`): the first byte picks one, the rest is
// its text. Oracles: a return page is a page of the home (no scheme, host, `//`, `..` or
// backslash); a flash cookie's text round-trips; an extent is four finite numbers in order; a
// chosen layer or basemap, and a server path, stay below `/arcgis/rest/services/` without an
// empty, `.` or `..` segment; a quoted file name holds no quote, backslash or line break; a
// cookie's value holds no `;`.

private func isBelowServices(_ path: String) -> Bool {
    path.hasPrefix("/arcgis/rest/services/")
        && !path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains { $0.isEmpty || $0 == "." || $0 == ".." }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let selector = input.bytes.first else { return 0 }
    let text = String(decoding: input.bytes.dropFirst(), as: UTF8.self)
    switch selector % 8 {
    case 0:
        if let page = HomeInputs.returnPage(text) {
            let file = page.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
            fuzzCheck(
                file.hasSuffix(".html") && !file.contains(":") && !page.contains("//") && !page.contains("..") && !page.contains("\\")
                    && page.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "\"") }, "a return page leaves the home: \(page)")
        }
    case 1:
        if let (kind, flashText) = HomeInputs.flash(text) {
            let again = HomeInputs.flash(HomeInputs.flashCookie(done: kind == "done", text: flashText))
            fuzzCheck(again?.kind == kind && (again?.text == String(flashText.prefix(500))), "a flash does not round-trip: \(flashText)")
        }
    case 2:
        if let box = HomeInputs.extent(text) {
            fuzzCheck(box.count == 4 && box.allSatisfy(\.isFinite) && box[0] < box[2] && box[1] < box[3], "a bad extent accepted: \(box)")
        }
    case 3, 4:
        if let (path, title) = HomeInputs.choice(text, layer: selector % 8 == 3) {
            fuzzCheck(isBelowServices(path) && title.count <= 250, "a choice leaves the services: \(path)")
        }
    case 5:
        if let path = HomeInputs.serverPath(text) { fuzzCheck(isBelowServices(path), "a server path leaves the services: \(path)") }
    case 6:
        let quoted = HomeInputs.quoted(text)
        fuzzCheck(!quoted.contains("\"") && !quoted.contains("\\") && !quoted.contains("\r") && !quoted.contains("\n"), "\(quoted)")
        _ = HomeInputs.isServiceName(text)
        if HomeInputs.isPlainId(text) { fuzzCheck(text.utf8.allSatisfy { $0 < 128 } && text.utf8.count <= 64, "\(text)") }
    default:
        if let value = HomeInputs.cookie("outpost_home", headers: [text]) {
            fuzzCheck(!value.contains(";") && !value.isEmpty && value.utf8.count <= 4096, "a cookie value spans pairs: \(value)")
        }
    }
    return 0
}

@main
enum FuzzHomeMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
