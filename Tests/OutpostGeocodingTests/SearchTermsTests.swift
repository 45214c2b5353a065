import Testing

@testable import OutpostGeocoding

/// What a text index looks up, built from canonical tokens only (docs/geocoding.md, "Search terms").
@Suite struct SearchTermsTests {
    @Test func requiredTokensAreTheDistinctiveOnesOfTheStreet() {
        let terms = SearchTerms(SingleLineAddress.parse("12 N Hill St, Springfield 90210"))
        #expect(terms.required == ["hill"])
        #expect(terms.optional == ["12", "north", "street", "springfield", "90210"])
        #expect(terms.fts5Expression == #""hill""#)
        // The loose passes leave out generic tokens and pure numbers: they meet everything.
        #expect(terms.looseTokens == ["hill", "springfield"])
        #expect(terms.fts5AnyExpression == #""hill" OR "springfield""#)
        #expect(terms.trigramText == "hill springfield")
    }

    @Test func theWholeQueryPassAndsEveryToken() {
        let terms = SearchTerms(SingleLineAddress.parse("2 Oak St, Ashford", knownLocalities: KnownLocalities(["Ashford"])))
        #expect(terms.fts5WholeExpression == #""oak" AND "2" AND "street" AND "ashford""#)
        #expect(terms.tsQueryWholeExpression == "'oak' & '2' & 'street' & 'ashford'")
        let typing = SearchTerms(SingleLineAddress.parse("2 Oak St, Ash", typing: true))
        #expect(typing.fts5WholeExpression == #""oak" AND "2" AND "street" AND "ash"*"#)
        // Nothing beyond the required tokens: no narrower pass than the AND pass.
        let bare = SearchTerms(SingleLineAddress.parse("Oakwood"))
        #expect(bare.fts5WholeExpression == nil && bare.tsQueryWholeExpression == nil)
    }

    @Test func withoutAStreetTheLocalityIsRequired() {
        let terms = SearchTerms(SingleLineAddress.parse("Springfield", knownLocalities: KnownLocalities(["Springfield"])))
        #expect(terms.required == ["springfield"])
        #expect(terms.fts5Expression == #""springfield""#)
    }

    @Test func thePrefixIsAPrefixQuery() {
        let terms = SearchTerms(SingleLineAddress.parse("12 Hill St, Spr", typing: true))
        #expect(terms.prefix == "spr")
        #expect(terms.fts5Expression == #""hill" AND "spr"*"#)
    }

    @Test func aQuoteInATokenIsDoubled() {
        #expect(SearchTerms.quoted(#"o"brien"#) == #""o""brien""#)
        #expect(SearchTerms.quoted(#"""#) == #""""""#)
    }

    /// User text never reaches an expression: quotes, operators and parentheses are gone before.
    @Test(arguments: [#"Hill" OR 1=1 --"#, #"NEAR(hill street)"#, #"hill* AND "x""#, "\u{0}hill\u{7F}"])
    func userTextIsNeverSpliced(_ text: String) {
        let terms = SearchTerms(SingleLineAddress.parse(text))
        for token in terms.required + terms.optional {
            #expect(token.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) })
        }
        let inner = (terms.fts5AnyExpression ?? "").replacingOccurrences(of: "\" OR \"", with: "")
        #expect(inner.dropFirst().dropLast().allSatisfy { $0.isLowercase || $0.isNumber })
    }

    /// A hand-made query is held to the same rule.
    @Test func aHandMadeQueryIsCleanedToo() {
        let terms = SearchTerms(ParsedAddress(street: [#"hi"ll"#, "ST)"]))
        #expect(terms.required == ["hill"])
    }

    @Test func aQueryOf500TokensIsCutTo20() {
        let text = (0..<500).map { "w\($0)" }.joined(separator: " ")
        let terms = SearchTerms(SingleLineAddress.parse(text))
        #expect(terms.required.count + terms.optional.count == QueryBounds.maximumTokens)
        #expect(terms.fts5AnyExpression?.components(separatedBy: " OR ").count == 20)
        #expect(terms.required.first == "w0")
    }

    @Test func aTwoHundredCharacterTextIsReadNoFurther() {
        let text = String(repeating: "a", count: 197) + " hill"
        #expect(SearchTerms(SingleLineAddress.parse(text)).required.last == "hi")
    }

    @Test func trigramsOfEachTokenForAFuzzyPass() {
        #expect(SearchTerms.trigrams(of: "hill") == ["hil", "ill"])
        #expect(SearchTerms.trigrams(of: "st").isEmpty)
        let terms = SearchTerms(SingleLineAddress.parse("Hil Stret"))
        #expect(terms.fts5TrigramExpression == #""hil" OR "str" OR "tre" OR "ret""#)
    }

    /// SQLite rejects `MATCH ''`: nothing to look up is nil, for every pass.
    @Test(arguments: ["", "  ,, ", "12 Street", "Москва"])
    func nothingToLookUpIsNil(_ text: String) {
        let terms = SearchTerms(SingleLineAddress.parse(text))
        #expect(terms.fts5Expression == nil)
        #expect(terms.fts5AnyExpression == nil)
        #expect(terms.fts5TrigramExpression == nil)
        #expect(terms.trigramText == nil)
        #expect(terms.tsQueryExpression == nil)
        #expect(terms.tsQueryAnyExpression == nil)
    }

    /// Nothing distinctive in the street: the AND pass is the OR pass.
    @Test func withNothingRequiredTheExpressionIsTheAnyExpression() {
        let terms = SearchTerms(SingleLineAddress.parse("North Street, Springfield"))
        #expect(terms.required.isEmpty)
        #expect(terms.fts5Expression == #""springfield""#)
        #expect(terms.fts5Expression == terms.fts5AnyExpression)
    }

    @Test func genericTokensAndNumbersStayOutOfTheTrigramPass() {
        let terms = SearchTerms(SingleLineAddress.parse("12 Hill Street, 90210"))
        #expect(terms.fts5TrigramExpression == #""hil" OR "ill""#)
    }

    /// PostgreSQL's passes: the same tokens as FTS5's, in `to_tsquery` form.
    @Test func postgreSQLsExpressionsHoldTheSameTokens() {
        let typing = SearchTerms(SingleLineAddress.parse("12 N Hill St, Spr", typing: true))
        #expect(typing.tsQueryExpression == "'hill' & 'spr':*")
        #expect(typing.tsQueryAnyExpression == "'hill' | 'spr':*")
        let loose = SearchTerms(SingleLineAddress.parse("North Street, Springfield"))
        #expect(loose.tsQueryExpression == "'springfield'")
        #expect(SearchTerms.tsQuoted("o'brien") == "'o''brien'")
        #expect(SearchTerms.tsQuoted(#"a\b"#) == #"'a\\b'"#)
    }
}
