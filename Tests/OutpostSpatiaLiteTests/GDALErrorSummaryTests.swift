import Testing

@testable import OutpostDataTools

/// GDAL's complaints, as a failed import's or publish's message shows them: the first lines,
/// bounded, and how many more there were.
@Suite struct GDALErrorSummaryTests {
    @Test func manyComplaintsAreCutToTheirFirstLines() {
        let text = (1...800).map { "ERROR 1: line \($0) of the CSV has too many fields" }.joined(separator: "\n") + "\n"
        let summary = GDALSource.summary(ofErrors: text)
        #expect(summary.hasPrefix("ERROR 1: line 1 of the CSV has too many fields ERROR 1: line 2"))
        #expect(summary.hasSuffix("(and 795 more lines)") && summary.count < 1_100, "\(summary.count)")
    }

    @Test(arguments: [
        ("ERROR 4: cannot open\n", "ERROR 4: cannot open"), ("  \n\nERROR 1: one\n\n", "ERROR 1: one"), ("", ""),
        (String(repeating: "x", count: 5_000), String(repeating: "x", count: 1_000) + "…"),
    ])
    func fewComplaintsAreKeptWhole(_ row: (String, String)) {
        #expect(GDALSource.summary(ofErrors: row.0) == row.1)
    }
}
