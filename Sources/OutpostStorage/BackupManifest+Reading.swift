import Foundation
import OutpostWire

#if canImport(Glibc)
    import Glibc
#endif

extension BackupManifest {
    /// The most bytes a manifest may have: about 100,000 files' lines. A backup folder may come
    /// from anywhere, so its manifest is not read whole before its size is known.
    public static let maximumBytes: Int64 = 16 << 20

    /// The manifest of the backup at `folder`: a plain file (links followed) of at most
    /// `maximumBytes`, parsed. `notABackup` when there is none, `unreadableManifest` when it
    /// is something else (a device, a pipe, too large) or does not parse.
    public static func load(folder: String) throws(BackupFailure) -> BackupManifest {
        let path = (folder as NSString).appendingPathComponent(fileName)
        var status = stat()
        guard stat(path, &status) == 0 else { throw .notABackup(folder) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .unreadableManifest("\(fileName) is not a plain file") }
        guard Int64(status.st_size) <= maximumBytes else {
            throw .unreadableManifest("\(fileName) has \(status.st_size) bytes, more than a manifest's \(maximumBytes)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .notABackup(folder) }
        defer { try? handle.close() }
        // Read at most one byte past the bound: the file may have grown since it was looked at.
        guard let data = try? handle.read(upToCount: Int(maximumBytes) + 1), Int64(data.count) <= maximumBytes else {
            throw .unreadableManifest("\(fileName) could not be read within \(maximumBytes) bytes")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(String(decoding: data, as: UTF8.self)) } catch { throw .unreadableManifest("\(error)") }
        return try BackupManifest(json: json)
    }
}
