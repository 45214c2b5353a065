import Foundation

/// Flushing files and folders to disk. A file written and renamed into place survives a power
/// loss only once its bytes are flushed before the rename and its folder's entries after it;
/// until then the kernel may keep either in memory, and a database row committed (and synced)
/// meanwhile could name a file that comes back empty or not at all.
public enum DurableFiles {
    /// Flushing `path` failed with `errno`.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var path: String
        public var errno: Int32

        public var description: String { "\(path) could not be flushed to disk: \(String(cString: strerror(errno)))" }
    }

    /// Flushes the file or folder at `path`: a file's bytes, a folder's entries.
    public static func sync(_ path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure(path: path, errno: errno) }
    }

    /// Flushes the folders from the one holding `path` up to `root`, both included: after a
    /// rename or link into a folder that may itself be new, each entry on the way is flushed.
    /// Relative paths are taken from the working directory (`data` or `""` alike).
    public static func syncFolders(of path: String, upTo root: String) throws(Failure) {
        let top = absolute(root)
        var folder = absolute((path as NSString).deletingLastPathComponent)
        while true {
            try sync(folder)
            guard folder != top, folder.hasPrefix(top), folder != "/" else { return }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path.isEmpty ? "." : path).standardizedFileURL.path
    }
}
