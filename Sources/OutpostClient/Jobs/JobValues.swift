import Foundation

/// Where a `Job` is: not started, running, paused (resumable), or finished.
public enum JobStatus: String, Sendable, Codable, Equatable {
    case notStarted, started, paused, succeeded, failed
}

public struct JobMessage: Sendable, Codable, Equatable {
    public var date: Date
    public var text: String
}

/// What a sync did, as the job reports it.
public struct SyncResult: Sendable, Codable, Equatable {
    /// Local edits sent (features and attachments, net per GlobalID).
    public var editsUploaded: Int
    /// Server changes written locally.
    public var changesApplied: Int
    /// Server changes held back because the feature was edited here meanwhile.
    public var changesDeferred: Int
    /// Local adds that received the server's OBJECTIDs.
    public var objectIdsAssigned: Int
    /// Uploaded edits the server refused (they stay pending): "layer:GlobalID: reason".
    public var failedEdits: [String]
    /// Layers whose fields changed on the service since the geodatabase was made (nil: none);
    /// the new fields' values are not in the file: download a new geodatabase to get them.
    public var schemaChanges: [SchemaChange]? = nil
}

/// What every job of the library offers a caller that drives and watches it (`Job`,
/// `GenerateOfflineMapJob`): the CLI's progress display takes any of them.
public protocol LongRunningJob: Sendable {
    associatedtype Output: Sendable
    var status: JobStatus { get }
    var messages: [JobMessage] { get }
    var progress: Progress { get }
    func start()
    func pause()
    func toJSON() throws -> Data
    var output: Output { get async throws }
}

extension Job: LongRunningJob {}
extension GenerateOfflineMapJob: LongRunningJob {}
