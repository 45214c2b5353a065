import OutpostWire
import Testing

@testable import OutpostServer

/// The control API's parsers under hostile text (docs/testing-your-app.md): a rule, a journal
/// pattern or a path either parses or is refused with a 400 naming it, never a crash, and what
/// parses lists back to the same rule. Mutations of valid inputs drawn from a fixed seed, so a
/// failure replays; these parsers live in the server module, which the libFuzzer package does
/// not build (docs/decisions.md, "Test target").
@Suite struct TestTargetHostileInputTests {
    static let rules = [
        #"{"operation":"synchronizeReplica","error":{"code":500,"message":"Injected","details":["x"]},"count":1}"#,
        #"{"service":"Folder/Demo","layer":0,"parameters":{"where":"1=1"},"latency":{"lognormal":{"median":20,"sigma":0.5}},"probability":0.25}"#,
        #"{"operation":"replicaFile","cutAfterFraction":0.6,"bandwidth":65536}"#,
        #"{"operation":"createReplica","job":{"failAtStep":"ExportingData","error":{"code":400,"message":"m"}}}"#,
        #"{"method":"POST","reset":true,"cutAfterBytes":10}"#,
    ]
    static let patterns = [
        #"{"operation":"applyEdits","status":200,"parameters":{"f":"json"}}"#,
        #"{"service":"Demo","errorCode":400,"since":3,"limit":10,"replicaId":"{A}"}"#,
    ]
    /// Characters that change what JSON means.
    static let significant = Array(#"{}[]":,\0-.e"#.utf8) + [0x00, 0xFF, 0x7F, UInt8(ascii: "9"), UInt8(ascii: "n")]

    static func mutated(_ text: String, _ random: inout SeededGenerator) -> String {
        var bytes = Array(text.utf8)
        for _ in 0...Int(random.next() % 4) {
            let at = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
            let byte = significant[Int(random.next() % UInt64(significant.count))]
            switch random.next() % 4 {
            case 0: bytes.insert(byte, at: at)
            case 1: if !bytes.isEmpty { bytes.remove(at: at) }
            case 2: if !bytes.isEmpty { bytes[at] = byte }
            default: bytes.insert(contentsOf: bytes[at...].prefix(Int(random.next() % 16)), at: at)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func mutatedRulesParseOrAreRefusedWith400AndListBackTheSame() throws {
        var random = SeededGenerator(seed: 47)
        var parsed = 0
        for round in 0..<5_000 {
            let text = Self.mutated(Self.rules[round % Self.rules.count], &random)
            do {
                let rule = try FaultRule(json: text)
                parsed += 1
                var object = try #require(rule.json(fired: 0).objectValue)
                object["id"] = nil
                object["fired"] = nil
                var again = try FaultRule(object: object)
                again.id = rule.id
                #expect(again == rule, "\(text)")
            } catch let error as ArcGISError {
                #expect(error.code == 400, "\(text)")
            }
        }
        // Some mutations keep a rule valid (a digit changed, a space): the property was exercised.
        #expect(parsed > 50)
    }

    @Test func mutatedJournalPatternsParseOrAreRefusedWith400() {
        var random = SeededGenerator(seed: 4_747)
        for round in 0..<5_000 {
            let text = Self.mutated(Self.patterns[round % Self.patterns.count], &random)
            do {
                let query = try JournalQuery.parse(pattern: text)
                #expect((query.limit ?? 1) >= 1 && (query.limit ?? 1) <= JournalQuery.maximumLimit, "\(text)")
            } catch let error as ArcGISError {
                #expect(error.code == 400, "\(text)")
            } catch {
                Issue.record("\(text): \(error)")
            }
        }
    }

    @Test func anyPathIsClassifiedWithoutTouchingTheStore() {
        var random = SeededGenerator(seed: 470)
        let base = "/arcgis/rest/services/Folder/Demo/FeatureServer/0/query"
        for _ in 0..<5_000 {
            let path = Self.mutated(base, &random).replacingOccurrences(of: "\0", with: "%00")
            let named = RequestPath(path)
            #expect(!named.operation.isEmpty)
            if let layer = named.layer { #expect(layer >= 0) }
        }
    }
}
