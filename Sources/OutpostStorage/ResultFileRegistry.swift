/// Who may download each result file (replica files, sync answers) a job or request wrote.
///
/// Contract: a file no one recorded belongs to nobody but the administrators (owner `""`);
/// forgotten names (swept files) leave no row behind. A file is served only below the service
/// it was made for (`service`); a file recorded without one (made before services were kept,
/// or of no feature service) is served by its owner alone.
public protocol ResultFileRegistry: Sendable {
    /// `service`: the feature service the file was made for (replica files, sync answers), as
    /// named in its URL, or another service's key (a tile package, `MapServer:<name>`) that no
    /// `replicafiles` path matches.
    func recordResultFile(_ name: String, owner: String, service: String?) throws
    func forgetResultFiles(_ names: [String]) throws
    /// The owner, or `""` when none was recorded.
    func resultFileOwner(_ name: String) throws -> String
    /// The service recorded for the file; nil when none was (or the file is unknown).
    func resultFileService(_ name: String) throws -> String?
    /// The names recorded for `owner` (exactly as recorded), for a quota's count.
    func resultFiles(ownedBy owner: String) throws -> [String]
    /// The names recorded as made for the feature service `service` (its name without case):
    /// what goes with the service when it is deleted.
    func resultFiles(madeFor service: String) throws -> [String]
}
