import Foundation
import Logging
import OutpostWire

/// `log-format=json`: one JSON object per line on standard output (`time`, `level`, `label`,
/// `message`, then the metadata), for log shippers that index fields.
struct JSONLogHandler: LineLogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    static var output: FileHandle { .standardOutput }

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        var object: JSONObject = [
            "time": .string(
                ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds])),
            "level": .string(level.rawValue), "label": .string(label), "message": .string(message.description),
        ]
        for (key, value) in merged(explicit).sorted(by: { $0.key < $1.key }) {
            object[key] = .string(value.description)
        }
        var writer = JSONWriter()
        writer.value(.object(object))
        write(writer.bytes + [0x0A])
    }
}
