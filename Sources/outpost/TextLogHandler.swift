import Foundation
import Logging

/// `log-format=text`: swift-log's `StreamLogHandler` lines on standard error (`<time> <level>
/// <label>: <metadata> [<source>] <message>`), with the metadata rendered when a line is
/// written. `StreamLogHandler` renders it whenever it is set, and Hummingbird sets a request id
/// on every request: a string built and sorted per request even with nothing logged.
struct TextLogHandler: LineLogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    static var output: FileHandle { .standardError }

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        let merged = merged(explicit)
        let rendered = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        write("\(Self.timestamp()) \(level) \(label):\(rendered) [\(source)] \(message)\n".utf8)
    }

    /// Local time, as `StreamLogHandler` writes it.
    private static func timestamp() -> String {
        var buffer = [Int8](repeating: 0, count: 64)
        var now = time(nil)
        guard let local = localtime(&now) else { return "<unknown>" }
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", local)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
