/// The image formats a thumbnail may be, told by the file's first bytes rather than by its
/// name: a thumbnail is served as the type its name says, so an HTML page named `a.png` is
/// refused rather than stored (docs/portal.md).
public enum ThumbnailImage: String, Sendable, Equatable, CaseIterable {
    case png, jpeg, gif

    /// The largest thumbnail taken: ArcGIS recommends 600 × 400 pixels.
    public static let maximumBytes = 10 << 20

    /// The format a file name's extension names, if it is one of these.
    public init?(fileName: String) {
        switch fileName.split(separator: ".").last.map({ $0.lowercased() }) {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "gif": self = .gif
        default: return nil
        }
    }

    /// The format the bytes begin with, if any.
    public init?(header: some Collection<UInt8>) {
        let bytes = Array(header.prefix(8))
        if bytes == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
            self = .png
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else {
            return nil
        }
    }
}
