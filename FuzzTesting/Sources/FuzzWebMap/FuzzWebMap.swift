import FuzzCommon
import OutpostService
import OutpostWire

// Web map JSON (`addItem` of a Web Map, `update` of its text): WebMapText.check.
// Oracles: what it accepts is a JSON object with `operationalLayers` (an array) or `baseMap`
// (an object), and JSON the lenient parser reads writes back to a fixed point.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let text = input.text
    let accepted = (try? WebMapText.check(text)) != nil
    guard let json = try? JSONParser.parse(text) else {
        fuzzCheck(!accepted, "accepted text that is not JSON: \(text)")
        return 0
    }
    let isWebMap = json.objectValue != nil && (json["operationalLayers"]?.arrayValue != nil || json["baseMap"]?.objectValue != nil)
    fuzzCheck(accepted == isWebMap, "WebMapText.check says \(accepted) for \(text)")
    var writer = JSONWriter()
    writer.value(json)
    let written = writer.bytes
    guard let again = try? JSONParser.parse(bytes: written) else {
        fuzzCheck(false, "the writer's output does not parse: \(writer.string)")
        return 0
    }
    var second = JSONWriter()
    second.value(again)
    fuzzCheck(second.bytes == written, "no fixed point: \(writer.string) then \(second.string)")
    return 0
}

@main
enum FuzzWebMapMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
