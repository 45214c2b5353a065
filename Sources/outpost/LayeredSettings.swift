import ArgumentParser
import Foundation
import OutpostWire

/// Settings resolved in layers: command line, then environment (`OUTPOST_<KEY>`, the key
/// upper-cased with `-` as `_`), then a JSON config file (`--config` or `OUTPOST_CONFIG`,
/// keys as on the command line: `{"port": 8080, "max-jobs": 4}`), then the default.
/// docs/configuration.md lists every key.
struct LayeredSettings {
    enum Source: String {
        case commandLine = "command line"
        case environment, file
        case defaultValue = "default"
    }

    let environment: [String: String]
    let file: JSONObject
    let filePath: String?
    /// Every key resolved so far, for the start-up summary.
    private(set) var resolved: [(key: String, value: String, source: Source)] = []

    init(configFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.environment = environment
        let path = configFile ?? environment["OUTPOST_CONFIG"]
        filePath = path
        guard let path else {
            file = JSONObject()
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("Cannot read the config file \(path).") }
        guard case .object(let object)? = try? JSONParser.parse(bytes: [UInt8](data)) else {
            throw ValidationError("The config file \(path) is not a JSON object.")
        }
        let known = Set(Self.keys.map(\.key))
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw ValidationError("The config file \(path) has an unknown key '\(unknown)' (see docs/configuration.md).")
        }
        file = object
    }

    static func environmentName(_ key: String) -> String { "OUTPOST_" + key.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The raw text of `key` from the first layer that has it.
    private mutating func text(_ key: String, commandLine: String?) -> (String, Source)? {
        if let commandLine { return (commandLine, .commandLine) }
        if let value = environment[Self.environmentName(key)] { return (value, .environment) }
        if let value = file[key] {
            switch value {
            case .string(let text): return (text, .file)
            default: return (value.jsonText, .file)
            }
        }
        return nil
    }

    mutating func string(_ key: String, _ commandLine: String?, default defaultValue: String) throws -> String {
        try optionalString(key, commandLine) ?? record(key, defaultValue, .defaultValue)
    }

    mutating func optionalString(_ key: String, _ commandLine: String?) throws -> String? {
        guard let (text, source) = text(key, commandLine: commandLine) else { return nil }
        return record(key, text, source)
    }

    mutating func int(_ key: String, _ commandLine: Int?, default defaultValue: Int) throws -> Int {
        guard let (text, source) = text(key, commandLine: commandLine.map(String.init)) else { return record(key, defaultValue, .defaultValue) }
        guard let value = Int(text) else { throw ValidationError("\(key) must be a whole number, got '\(text)' (\(source.rawValue)).") }
        return record(key, value, source)
    }

    mutating func double(_ key: String, _ commandLine: Double?, default defaultValue: Double) throws -> Double {
        guard let (text, source) = text(key, commandLine: commandLine.map { String($0) }) else { return record(key, defaultValue, .defaultValue) }
        guard let value = Double(text) else { throw ValidationError("\(key) must be a number, got '\(text)' (\(source.rawValue)).") }
        return record(key, value, source)
    }

    mutating func bool(_ key: String, _ commandLine: Bool?, default defaultValue: Bool) throws -> Bool {
        guard let (text, source) = text(key, commandLine: commandLine.map { $0 ? "true" : "false" }) else {
            return record(key, defaultValue, .defaultValue)
        }
        switch text.lowercased() {
        case "true", "1", "yes", "on": return record(key, true, source)
        case "false", "0", "no", "off": return record(key, false, source)
        default: throw ValidationError("\(key) must be true or false, got '\(text)' (\(source.rawValue)).")
        }
    }

    private mutating func record<T>(_ key: String, _ value: T, _ source: Source) -> T {
        resolved.append((key, "\(value)", source))
        return value
    }

    /// One line per key, secrets redacted: printed at start-up.
    var summary: String {
        resolved.map { entry in
            let secret = Self.keys.first { $0.key == entry.key }?.secret ?? false
            return "\(entry.key)=\(secret ? "<redacted>" : entry.value) (\(entry.source.rawValue))"
        }.joined(separator: ", ")
    }

    /// Every key `serve` reads (docs/configuration.md is checked against this list).
    static let keys: [(key: String, secret: Bool)] = [
        ("data", false), ("host", false), ("port", false), ("testdata", false), ("demo", false), ("log-level", false), ("log-format", false),
        ("tls-cert", false), ("tls-key", true), ("self-signed", false), ("max-upload-mb", false), ("result-file-idle-minutes", false),
        ("max-jobs", false), ("max-queued-jobs", false), ("max-jobs-per-user", false), ("idle-timeout-seconds", false),
        ("max-sync-edits", false), ("max-sync-attachment-mb", false), ("require-auth", false), ("token-minutes", false),
        ("max-export-tiles", false), ("max-map-areas", false), ("max-result-mb-per-user", false), ("max-item-mb-per-user", false),
        ("allowed-origins", false), ("public-url", false), ("database", true),
        ("object-store", true), ("oidc-issuer", false), ("oidc-client-id", false), ("oidc-client-secret", true), ("oidc-name", false),
        ("oidc-username-claim", false), ("oidc-role-claim", false), ("test-target", false), ("seed", false), ("seed-data", false),
        ("ready-file", false), ("backup-dir", false), ("backup-keep", false),
    ]
}
