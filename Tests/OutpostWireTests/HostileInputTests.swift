import Foundation
import Testing

@testable import OutpostWire

/// A seeded generator (SplitMix64): a failing case is reproduced from its seed, printed.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Mutations of valid inputs: byte flips, insertions of characters that matter to parsers,
/// deletions, truncations, duplications and splices.
enum Mutator {
    static let interesting: [UInt8] = Array("{}[]()\"'\\,:;-+.eE0123456789 \t\n\r\0%_*/<>=!&|".utf8) + [0xFF, 0xC3, 0x80, 0xE2]

    static func mutate(_ input: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.insert(interesting.randomElement(using: &random)!, at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            case 3: bytes = Array(bytes.prefix(position))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            default:
                bytes.insert(
                    contentsOf: Array(repeating: interesting.randomElement(using: &random)!, count: Int.random(in: 1...300, using: &random)),
                    at: position)
            }
        }
        return bytes
    }
}

/// Hostile input for every text parser of the wire model: each must answer a value or a typed
/// error — never crash, hang or run out of memory. The case counts are those of the table in
/// docs/reliability.md.
@Suite struct HostileInputTests {
    static let cases = 4000

    @Test func jsonParser() {
        let seeds = [
            #"{"a":[1,2.5e3,{"b":"c\u00e9\n"}],"d":null,"e":true}"#, #"[{"id":0,"features":{"adds":[],"deleteIds":["{A}"]}}]"#,
            "{'single': 'quotes', \"x\": -0.0}",
        ]
        var random = SeededRandom(seed: 0x5EED_0001)
        var parsed = 0
        for index in 0..<Self.cases {
            let input = Mutator.mutate(Array(seeds[index % seeds.count].utf8), &random)
            if (try? JSONParser.parse(bytes: input)) != nil { parsed += 1 }
        }
        // Deep nesting is refused, not a stack overflow.
        #expect((try? JSONParser.parse(String(repeating: "[", count: 100_000))) == nil)
        #expect(parsed > 0 && parsed < Self.cases)
    }

    @Test func whereClauses() {
        let seeds = [
            "height_m > 20 AND species LIKE 'Q%'", "OBJECTID IN (1, 2, 3) OR NOT (species IS NULL)",
            "planted >= DATE '2020-01-01' AND healthy = 1", "UPPER(species) = 'OAK' AND height_m BETWEEN 1 AND 2",
        ]
        let fields: [String: EsriFieldType] = ["height_m": .double, "species": .string, "objectid": .oid, "planted": .date, "healthy": .smallInteger]
        var random = SeededRandom(seed: 0x5EED_0002)
        var validated = 0
        for index in 0..<Self.cases {
            let text = String(decoding: Mutator.mutate(Array(seeds[index % seeds.count].utf8), &random), as: UTF8.self)
            // A tree, or a typed refusal; what passes is what the compilers emit (they bind every
            // literal: `WhereCompilerTests.hostileCharactersAnywhereNeverReachTheSQL`).
            if (try? WhereValidator.parse(where: text, fields: { fields[$0.lowercased()] })) != nil { validated += 1 }
        }
        #expect((try? WhereParser.parse(String(repeating: "(", count: 10_000) + "1=1" + String(repeating: ")", count: 10_000))) == nil)
        #expect((try? WhereParser.parse(String(repeating: "a = 1 AND ", count: 10_000) + "a = 1")) == nil)
        #expect(validated > 0 && validated < Self.cases)
    }

    @Test func syncEdits() {
        let seeds = [
            #"[{"id":2,"features":{"adds":[{"attributes":{"GlobalID":"{00000000-0000-0000-0000-000000000001}","x":1},"geometry":{"x":1,"y":2}}],"updates":[],"deleteIds":["{00000000-0000-0000-0000-000000000002}"]},"attachments":{"adds":[{"globalId":"{00000000-0000-0000-0000-000000000003}","parentGlobalId":"{00000000-0000-0000-0000-000000000001}","data":"AAE="}]}}]"#
        ]
        var random = SeededRandom(seed: 0x5EED_0003)
        var accepted = 0
        for _ in 0..<Self.cases {
            let input = Mutator.mutate(Array(seeds[0].utf8), &random)
            guard let json = try? JSONParser.parse(bytes: input) else { continue }
            if (try? SynchronizeReplicaRequest.parseEdits(json, parameter: "edits")) != nil { accepted += 1 }
        }
        #expect(accepted > 0)
    }

    @Test func multipartBodies() {
        let body = Array(
            "--B\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\nDATA\r\n--B--\r\n"
                .utf8)
        var random = SeededRandom(seed: 0x5EED_0004)
        var complete = 0
        for _ in 0..<Self.cases {
            let input = Mutator.mutate(body, &random)
            var parser = MultipartStreamParser(boundary: "B")
            var offset = 0
            var failed = false
            while offset < input.count {
                let end = min(input.count, offset + Int.random(in: 1...64, using: &random))
                if (try? parser.feed(input[offset..<end])) == nil {
                    failed = true
                    break
                }
                offset = end
            }
            if !failed, (try? parser.finish()) != nil { complete += 1 }
        }
        #expect(complete > 0 && complete < Self.cases)
    }
}
