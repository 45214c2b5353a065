import Foundation
import Logging
import OutpostWire

/// `log-format=json`: one JSON object per line on standard output (`time`, `level`, `label`,
/// `message`, then the metadata), for log shippers that index fields.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    private static let output = FileHandle.standardOutput
    private static let lock = NSLock()

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        var object: JSONObject = [
            "time": .string(
                ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds])),
            "level": .string(level.rawValue), "label": .string(label), "message": .string(message.description),
        ]
        for (key, value) in metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            object[key] = .string(value.description)
        }
        var writer = JSONWriter()
        writer.value(.object(object))
        let line = Data(writer.bytes + [0x0A])
        Self.lock.lock()
        defer { Self.lock.unlock() }
        Self.output.write(line)
    }
}
