/// The tables behind `AddressNormalizer` (docs/geocoding.md, "Abbreviations"). Long forms are
/// canonical: every abbreviation maps to the word it shortens, and a long form maps to itself.
extension AddressNormalizer {
    /// Abbreviation → canonical word. "st" is not here: it depends on its position (`canonical`).
    static let abbreviations: [String: String] = [
        "str": "street", "strt": "street",
        "rd": "road",
        "ave": "avenue", "av": "avenue", "avn": "avenue",
        "blvd": "boulevard", "bvd": "boulevard", "boul": "boulevard",
        "dr": "drive", "drv": "drive",
        "ln": "lane",
        "ct": "court", "crt": "court",
        "pl": "place",
        "sq": "square",
        "hwy": "highway",
        "pkwy": "parkway", "pky": "parkway",
        "ter": "terrace", "terr": "terrace",
        "cres": "crescent", "crsnt": "crescent",
        "cl": "close",
        "cir": "circle",
        "mt": "mount",
        "n": "north", "s": "south", "e": "east", "w": "west",
        "ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest",
    ]

    /// Ordinal words → the digit form data usually carries ("First Ave" = "1st Ave").
    static let ordinals: [String: String] = [
        "first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th",
        "sixth": "6th", "seventh": "7th", "eighth": "8th", "ninth": "9th", "tenth": "10th",
    ]

    /// Letters that decomposition does not split into a base letter and a mark.
    static let foldedLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "ł": "l", "ı": "i",
    ]

    static let streetTypes: Set<String> = [
        "street", "road", "avenue", "boulevard", "drive", "lane", "court", "place", "square", "highway",
        "parkway", "terrace", "crescent", "close", "circle", "way", "route", "rue", "strasse",
    ]

    static let directions: Set<String> = [
        "north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest",
    ]

    static let particles: Set<String> = [
        "de", "du", "des", "la", "le", "les", "of", "the", "der", "die", "das", "von", "van",
    ]
}
