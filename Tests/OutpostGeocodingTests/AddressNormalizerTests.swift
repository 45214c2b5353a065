import Testing

@testable import OutpostGeocoding

/// Text to canonical tokens (docs/geocoding.md, "Normalisation", "Abbreviations").
@Suite struct AddressNormalizerTests {
    @Test(arguments: [
        ("lower case and punctuation to spaces", "HILL-St.", ["hill", "street"]),
        ("spaces collapse", "  Hill \t  Street  ", ["hill", "street"]),
        ("accents are stripped", "Rue de l'Église", ["rue", "de", "leglise"]),
        ("sharp s is ss", "Hauptstraße", ["hauptstrasse"]),
        ("ligatures and stroked letters", "Æbeløkke Łódź", ["aebelokke", "lodz"]),
        ("apostrophes join", "St Mary's Rd", ["saint", "marys", "road"]),
        ("st first and followed is saint", "St Albans", ["saint", "albans"]),
        ("st after a name is street", "Hill St", ["hill", "street"]),
        ("a lone st is street", "St", ["street"]),
        ("a second st is street", "St Marys St", ["saint", "marys", "street"]),
        ("directions expand", "N Main St", ["north", "main", "street"]),
        ("two-letter directions expand", "NE Oak Ave", ["northeast", "oak", "avenue"]),
        ("long forms are canonical", "North Main Street", ["north", "main", "street"]),
        (
            "street types", "rd av ave blvd dr ln ct pl sq hwy pkwy ter cres cl str",
            [
                "road", "avenue", "avenue", "boulevard", "drive", "lane", "court", "place", "square", "highway", "parkway", "terrace",
                "crescent", "close", "street",
            ]
        ),
        ("ordinal words are digits", "First Avenue", ["1st", "avenue"]),
        ("digit ordinals stay", "21st Street", ["21st", "street"]),
        ("other scripts are dropped", "Москва Hill", ["hill"]),
        ("a long word is cut to 40", String(repeating: "a", count: 60), [String(repeating: "a", count: 40)]),
    ])
    func tokens(_ rule: String, _ text: String, _ expected: [String]) {
        #expect(AddressNormalizer.tokens(text) == expected, "\(rule)")
    }

    @Test(arguments: [
        ("abbreviations are spelt out", "N Main St.", "North Main Street"),
        ("saint first", "St Marys Rd", "Saint Marys Road"),
        ("diacritics are kept", "Rue de l'Église", "Rue de l'Église"),
        ("ordinals stay as written", "1st Ave", "1st Avenue"),
        ("names stay as written", "McDonald Blvd", "McDonald Boulevard"),
    ])
    func displayForms(_ rule: String, _ text: String, _ expected: String) {
        #expect(AddressNormalizer.displayForm(text) == expected, "\(rule)")
    }

    @Test(arguments: ["street", "north", "de", "rue"]) func genericTokens(_ token: String) {
        #expect(AddressNormalizer.isGeneric(token))
    }

    @Test(arguments: ["hill", "main", "saint", "1st"]) func distinctiveTokens(_ token: String) {
        #expect(!AddressNormalizer.isGeneric(token))
    }
}
