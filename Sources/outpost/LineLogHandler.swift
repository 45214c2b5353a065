import Foundation
import Logging

/// A log handler that writes one line per message: it keeps the logger's metadata as given
/// (rendered only when a line is written) and writes each line whole, under one lock shared
/// by all such handlers, to the handle it names.
protocol LineLogHandler: LogHandler {
    var metadata: Logger.Metadata { get set }
    /// Where lines go.
    static var output: FileHandle { get }
}

private let lineLock = NSLock()

extension LineLogHandler {
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The logger's metadata with a message's own on top.
    func merged(_ explicit: Logger.Metadata?) -> Logger.Metadata {
        metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 })
    }

    func write(_ line: some Collection<UInt8>) {
        let data = Data(line)
        lineLock.lock()
        defer { lineLock.unlock() }
        Self.output.write(data)
    }
}
