import FuzzCommon
import OutpostWire

// A CSV file analysed before it is published (`content/features/analyze`): CSVAnalysis(text:).
// Oracles: at most 500 columns, five records, one of the four delimiters; names unique
// without case and never empty; coordinate columns only among the columns found.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let analysis = CSVAnalysis(text: String(decoding: input.bytes, as: UTF8.self))
    let names = analysis.columns.map(\.name)
    fuzzCheck(names.count <= CSVAnalysis.maximumColumns, "\(names.count) columns")
    fuzzCheck(analysis.records.count <= 5, "\(analysis.records.count) records")
    fuzzCheck([",", ";", "\t", "|"].contains(analysis.delimiter), "delimiter \(analysis.delimiter)")
    fuzzCheck(Set(names.map { $0.lowercased() }).count == names.count, "names repeat: \(names)")
    fuzzCheck(!names.contains(""), "an empty name")
    for column in [analysis.longitudeColumn, analysis.latitudeColumn, analysis.geometryColumn].compactMap({ $0 }) {
        fuzzCheck(names.contains(column), "\(column) is not a column")
    }
    return 0
}

@main
enum FuzzCSVMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
