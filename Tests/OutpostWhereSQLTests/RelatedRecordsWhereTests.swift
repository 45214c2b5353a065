import OutpostWhereSQL
import OutpostWire
import Testing

/// The related table's `where` of a `queryRelatedRecords` (`RelatedRecordsRequest.relatedWhere`):
/// its key values reach SQL as bound literals, never as text.
@Suite struct RelatedRecordsWhereTests {
    @Test func keysAreBoundLiteralsInEverySpellingOfAGUID() throws {
        let text = RelatedRecordsRequest.relatedWhere(
            keyField: "TreeGUID", keys: [.string("{0000000a-0000-4000-8000-000000000002}"), .string("O'Brien"), .int(7)],
            definitionExpression: "finding <> 'x'")
        let fragment = try WhereCompiler.compile(
            where: text,
            columns: { name in
                name.lowercased() == "treeguid" || name.lowercased() == "finding" ? WhereColumn(sql: "t.\"\(name)\"", type: .string) : nil
            }, dialect: .sqlite)
        let guid = "0000000A-0000-4000-8000-000000000002"
        #expect(
            fragment.arguments == [
                .text("x"), .text("{0000000a-0000-4000-8000-000000000002}"), .text("{\(guid)}"), .text(guid), .text(guid.lowercased()),
                .text("O'Brien"),
            ])
        // Strings are bound; a number is a parsed literal, written as the compiler writes numbers.
        #expect(!fragment.sql.contains("Brien") && !fragment.sql.contains("0000") && fragment.sql.contains("7"))
    }
}
