import Foundation

/// Named copies of a store's whole state — rows and the files beside them — saved and put back
/// while a server runs (`serve --test-target`, docs/testing-your-app.md "Snapshots"). A
/// restore is a write like any other: requests before it see the old state, after it the
/// snapshot's, none an error; nothing written after the snapshot survives it.
public protocol StateSnapshots: Sendable {
    /// Saves the current state under `name`, replacing a snapshot of that name.
    func save(_ name: SnapshotName) throws -> SnapshotInfo
    /// Puts the state saved under `name` in place of the current one (`SnapshotError.notFound`).
    func restore(_ name: SnapshotName) throws
    /// The snapshots kept, by name.
    func list() throws -> [SnapshotInfo]
    /// Removes a snapshot (`SnapshotError.notFound` when there is none).
    func delete(_ name: SnapshotName) throws
    /// Restores a snapshot folder saved by `save` and copied anywhere (`serve --seed-data`).
    func restore(folder: String) throws
}

/// A snapshot's name: 1 to 64 letters, digits, `_` and `-`, checked before anything is touched
/// (it names a folder and, on PostgreSQL, a schema through a digest: never SQL text).
public struct SnapshotName: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    public init(_ text: String) throws(SnapshotError) {
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard (1...64).contains(text.utf8.count), allowed else { throw SnapshotError.invalidName(text) }
        self.text = text
    }

    public var description: String { text }

    /// The snapshot every test target takes as it starts (`POST /_outpost/reset` restores it).
    public static let start = try! SnapshotName("start")
}

/// What the control API lists of a snapshot.
public struct SnapshotInfo: Sendable, Equatable {
    public var name: String
    /// When it was saved (the store's clock, epoch milliseconds).
    public var created: Int64
    /// Bytes it holds (its rows and files; hard-linked files counted whole).
    public var bytes: Int64

    public init(name: String, created: Int64, bytes: Int64) {
        self.name = name
        self.created = created
        self.bytes = bytes
    }
}

public enum SnapshotError: Error, Equatable, CustomStringConvertible {
    case invalidName(String)
    case notFound(String)
    /// This store cannot do it (an object store's files, a folder of the other backend).
    case unsupported(String)
    case failed(String)

    public var description: String {
        switch self {
        case .invalidName(let name):
            "'\(name.prefix(80))' is not a snapshot name: 1 to 64 letters, digits, '_' or '-'"
        case .notFound(let name): "no snapshot '\(name)'"
        case .unsupported(let reason): reason
        case .failed(let reason): "snapshot failed: \(reason)"
        }
    }
}
