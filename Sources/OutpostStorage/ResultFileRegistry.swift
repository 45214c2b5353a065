/// Who may download each result file (replica files, sync answers) a job or request wrote.
///
/// Contract: a file no one recorded belongs to nobody but the administrators (owner `""`);
/// forgotten names (swept files) leave no row behind.
public protocol ResultFileRegistry: Sendable {
    func recordResultFile(_ name: String, owner: String) throws
    func forgetResultFiles(_ names: [String]) throws
    /// The owner, or `""` when none was recorded.
    func resultFileOwner(_ name: String) throws -> String
    /// The names recorded for `owner` (exactly as recorded), for a quota's count.
    func resultFiles(ownedBy owner: String) throws -> [String]
}
