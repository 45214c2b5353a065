import Foundation
import OutpostDataTools

/// The progress bar of `outpost import` on a terminal: one line per table, redrawn in place
/// as its rows load, left standing when the table is done.
enum ImportProgressBar {
    @Sendable static func draw(_ progress: ImportProgress) {
        let fraction = progress.total > 0 ? min(1, Double(progress.loaded) / Double(progress.total)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let done = progress.loaded >= progress.total
        let count = progress.isPercent ? "" : " \(progress.loaded)/\(progress.total) rows"
        let line = "\r\(progress.layer) [\(bar)] \(Int(fraction * 100))%\(count)\u{1B}[K\(done ? "\n" : "")"
        // Unbuffered, so the bar moves as the load does.
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
